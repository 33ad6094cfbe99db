// Output paths: kind checks, atomic whole-file writes, the output folder's lock.
#include "common/output_file.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.hpp"

namespace fs = std::filesystem;

namespace rb {
namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a pipe";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// The nearest ancestor of `p` that exists must be a folder this process may write into.
void check_creatable_under(const std::string& flag, const fs::path& p) {
  fs::path up = fs::absolute(p).parent_path();
  struct stat st {};
  while (::stat(up.c_str(), &st) != 0) {
    if (errno != ENOENT || up == up.parent_path())
      throw InputError(flag, p.string(), fmt::format("{} cannot be inspected: {}", up.string(), std::strerror(errno)));
    up = up.parent_path();
  }
  if (!S_ISDIR(st.st_mode))
    throw InputError(flag, p.string(), fmt::format("{} is {}, not a folder", up.string(), kind_of(st.st_mode)));
  if (::access(up.c_str(), W_OK | X_OK) != 0)
    throw InputError(flag, p.string(),
                     fmt::format("the folder {} is not writable: {}", up.string(), std::strerror(errno)));
}

[[noreturn]] void os_failure(const std::string& flag, const fs::path& path, const char* step, int err) {
  throw Error(fmt::format("{}: {} {} failed: {}", flag, step, path.string(), std::strerror(err)));
}

}  // namespace

namespace {

// Whether two paths name one file: by device and inode where both exist, else by canonical path.
bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

}  // namespace

void check_outputs_apart(std::initializer_list<NamedPath> inputs, std::initializer_list<NamedPath> outputs) {
  for (auto out = outputs.begin(); out != outputs.end(); ++out) {
    if (out->path.empty()) continue;
    for (const auto& in : inputs)
      if (!in.path.empty() && same_file(out->path, in.path))
        throw InputError(out->flag, out->path.string(),
                         fmt::format("is the input {} ({}): an output must not replace an input", in.flag,
                                     in.path.string()));
    for (auto other = outputs.begin(); other != out; ++other)
      if (!other->path.empty() && same_file(out->path, other->path))
        throw InputError(out->flag, out->path.string(),
                         fmt::format("is also {}: two outputs must be two files", other->flag));
  }
}

void check_output_file(const std::string& flag, const fs::path& path) {
  if (path.empty()) throw InputError(flag, "''", "an output file needs a path");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      throw InputError(flag, path.string(),
                       fmt::format("is {}; an output must be a regular file or a new path", kind_of(st.st_mode)));
    if (::access(path.c_str(), W_OK) != 0)
      throw InputError(flag, path.string(), fmt::format("the file is not writable: {}", std::strerror(errno)));
  }
  check_creatable_under(flag, path);
}

void check_output_dir(const std::string& flag, const fs::path& dir) {
  if (dir.empty()) throw InputError(flag, "''", "an output folder needs a path");
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      throw InputError(flag, dir.string(),
                       fmt::format("is {}; an output folder must be a folder or a new path", kind_of(st.st_mode)));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw InputError(flag, dir.string(), fmt::format("the folder is not writable: {}", std::strerror(errno)));
    return;
  }
  check_creatable_under(flag, dir);
}

void make_output_dir(const std::string& flag, const fs::path& dir) {
  check_output_dir(flag, dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(flag, dir.string(), fmt::format("the folder cannot be created: {}", ec.message()));
}

void write_output_file(const std::string& flag, const fs::path& path, std::string_view text) {
  write_output_file(flag, path, {text});
}

void write_output_file(const std::string& flag, const fs::path& path, std::initializer_list<std::string_view> parts) {
  check_output_file(flag, path);
  if (path.has_parent_path()) make_output_dir(flag, path.parent_path());
  fs::path tmp = path;
  tmp.replace_filename(fmt::format(".{}.{}.tmp", path.filename().string(), ::getpid()));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) os_failure(flag, path, "creating a temporary beside", errno);
  int err = 0;
  for (const std::string_view text : parts) {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0 && err == 0) {
      const ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        err = errno;
      else {
        p += n;
        left -= static_cast<std::size_t>(n);
      }
    }
  }
  if (err == 0 && ::fsync(fd) != 0 && errno != EINVAL) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    os_failure(flag, path, "writing", err);
  }
}

OutputDirLock::OutputDirLock(const std::string& flag, const fs::path& dir) {
  make_output_dir(flag, dir);
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0)
    throw InputError(flag, dir.string(), fmt::format("the folder cannot be opened: {}", std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw InputError(flag, dir.string(),
                       "another ringbench is writing into this folder (it holds the folder's lock); wait for it or "
                       "choose another folder");
    throw InputError(flag, dir.string(), fmt::format("the folder cannot be locked: {}", std::strerror(err)));
  }
}

OutputDirLock::~OutputDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace rb
