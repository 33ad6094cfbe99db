// Output paths: kind checks, atomic whole-file writes, the output folder's lock.
#include "common/output_file.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.hpp"

namespace fs = std::filesystem;

namespace rb {

std::string path_error_text(int err) {
  if (err == ELOOP) return "too many levels of symbolic links (a symlink loop)";
  return std::strerror(err);
}

namespace {

const char* kind_of(mode_t m) {
  if (S_ISREG(m)) return "a file";
  if (S_ISDIR(m)) return "a folder";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a pipe";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "neither a file nor a folder";
}

// What a symbolic link leads to, as the start of a rule. Its target is left out: it may be any
// length, and the message is one short line.
std::string link_kind(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) == 0) return fmt::format("is a symbolic link to {}", kind_of(st.st_mode));
  if (errno == ENOENT) return "is a dangling symbolic link (its target does not exist)";
  if (errno == ELOOP) return "is a symbolic link in a loop (too many levels of symbolic links)";
  return fmt::format("is a symbolic link that cannot be followed ({})", std::strerror(errno));
}

// Every later open of a relative path would fail with a bare "No such file or directory" once the
// working folder has been removed under the process, so that is said first, naming the flag.
void check_working_dir(const std::string& flag, const fs::path& p) {
  if (p.is_absolute()) return;
  std::error_code ec;
  (void)fs::current_path(ec);
  if (ec)
    throw InputError(flag, p.string(),
                     fmt::format("is relative, and the working folder cannot be found ({}; was it removed?): run "
                                 "from an existing folder or give an absolute path",
                                 ec.message()));
}

// The nearest ancestor of `p` that exists must be a folder this process may write into.
void check_creatable_under(const std::string& flag, const fs::path& p) {
  fs::path up = p.parent_path();
  struct stat st {};
  for (;;) {
    const fs::path probe = up.empty() ? fs::path(".") : up;
    if (::stat(probe.c_str(), &st) == 0) {
      up = probe;
      break;
    }
    const int err = errno;
    if (err != ENOENT || up.empty() || up == up.parent_path())
      throw InputError(flag, p.string(),
                       fmt::format("{} cannot be inspected: {}", probe.string(), path_error_text(err)));
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

// A temporary beside `path` under a random name, created exclusively: whatever already has that name
// (a planted symbolic link included, which O_EXCL never follows) makes the next name be tried.
// open() rather than mkstemp(), so the kernel applies the umask to 0666 as for any new file, and
// nothing reads umask(), which would set it process-wide under the sweep's other threads.
int create_temporary(const std::string& flag, const fs::path& path, fs::path& tmp) {
  std::random_device rd;
  // NAME_MAX is 255: the target's name is shortened in the temporary's so the suffix fits.
  const std::string stem = path.filename().string().substr(0, 128);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::uint64_t r = (std::uint64_t{rd()} << 32) ^ rd();
    tmp = path;
    tmp.replace_filename(fmt::format(".{}.{:016x}.tmp", stem, r));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) os_failure(flag, path, "creating a temporary beside", errno);
  }
  os_failure(flag, path, "creating a temporary beside", EEXIST);
}

// The path made absolute with its existing part resolved (links, "..", "."), without a trailing
// separator: what two spellings of one place share. Empty when the working folder is gone.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  if (ec) return {};
  fs::path r = fs::weakly_canonical(a, ec);
  if (ec) r = a.lexically_normal();
  if (!r.has_filename() && r.has_relative_path()) r = r.parent_path();
  return r;
}

// Whether `p` is `at` or lies under it: every ancestor of `p`, itself first, is compared with `at`
// by device and inode where `at` exists (a hard link, a bind mount or a link in the path is the
// same place), else by resolved path.
bool is_or_under(const fs::path& p, const fs::path& at) {
  const fs::path rp = resolved(p), ra = resolved(at);
  if (rp.empty() || ra.empty()) return false;
  struct stat sa {};
  const bool exists = ::stat(at.c_str(), &sa) == 0;
  for (fs::path q = rp;; q = q.parent_path()) {
    struct stat sq {};
    if (exists ? ::stat(q.c_str(), &sq) == 0 && sq.st_dev == sa.st_dev && sq.st_ino == sa.st_ino : q == ra) return true;
    if (q == q.parent_path()) return false;
  }
}

}  // namespace

void check_outputs_apart(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  for (auto out = outputs.begin(); out != outputs.end(); ++out) {
    if (out->path.empty()) continue;
    for (const auto& in : inputs) {
      if (in.path.empty() || !is_or_under(out->path, in.path)) continue;
      if (in.kind == PathKind::folder)
        throw InputError(out->flag, out->path.string(),
                         fmt::format("is inside the input folder {} ({}): an output must not be written among the "
                                     "inputs, where it would be read as one",
                                     in.flag, in.path.string()));
      throw InputError(out->flag, out->path.string(),
                       fmt::format("is the input {} ({}): an output must not replace an input", in.flag,
                                   in.path.string()));
    }
    for (auto other = outputs.begin(); other != out; ++other) {
      if (other->path.empty()) continue;
      // A file output clashes with anything at its path or under it; two folders may be one.
      const bool clash = (other->kind == PathKind::file && is_or_under(out->path, other->path)) ||
                         (out->kind == PathKind::file && is_or_under(other->path, out->path));
      if (!clash) continue;
      if (out->kind == PathKind::file && other->kind == PathKind::file)
        throw InputError(out->flag, out->path.string(),
                         fmt::format("is also {}: two outputs must be two files", other->flag));
      throw InputError(out->flag, out->path.string(),
                       fmt::format("is also the {} {} ({}): one path cannot be both a file and a folder",
                                   other->kind == PathKind::file ? "file" : "folder", other->flag,
                                   other->path.string()));
    }
  }
}

void check_output_file(const std::string& flag, const fs::path& path) {
  if (path.empty()) throw InputError(flag, "''", "an output file needs a path");
  // Checked by spelling, before anything exists: `-o newdir/` must not create newdir and then fail.
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw InputError(flag, path.string(),
                     "names a folder (it ends in '/', or is '.' or '..'); an output file needs a file name");
  check_working_dir(flag, path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      throw InputError(flag, path.string(),
                       link_kind(path) + "; an output is never written through a link nor replaces one");
    if (!S_ISREG(st.st_mode))
      throw InputError(flag, path.string(),
                       fmt::format("is {}; an output must be a regular file or a new path", kind_of(st.st_mode)));
    if (::access(path.c_str(), W_OK) != 0)
      throw InputError(flag, path.string(), fmt::format("the file is not writable: {}", std::strerror(errno)));
  } else if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP) {
    // ENOTDIR and ELOOP come from an ancestor, which check_creatable_under names.
    throw InputError(flag, path.string(), fmt::format("cannot be inspected: {}", path_error_text(errno)));
  }
  check_creatable_under(flag, path);
}

void check_output_dir(const std::string& flag, const fs::path& dir) {
  if (dir.empty()) throw InputError(flag, "''", "an output folder needs a path");
  check_working_dir(flag, dir);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && ::stat(dir.c_str(), &st) != 0)
    throw InputError(flag, dir.string(),
                     link_kind(dir) + "; an output folder must be a folder, a link to one, or a new path");
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode))
      throw InputError(flag, dir.string(),
                       "is a file, not a folder; an output folder must be a folder or a new path (the outputs are "
                       "written inside it)");
    if (!S_ISDIR(st.st_mode))
      throw InputError(flag, dir.string(),
                       fmt::format("is {}; an output folder must be a folder or a new path", kind_of(st.st_mode)));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw InputError(flag, dir.string(), fmt::format("the folder is not writable: {}", std::strerror(errno)));
    return;
  }
  if (errno != ENOENT && errno != ENOTDIR)
    throw InputError(flag, dir.string(), fmt::format("cannot be inspected: {}", path_error_text(errno)));
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
  // A replaced file keeps its permissions, as it would if it were rewritten in place.
  struct stat old {};
  const bool replacing = ::lstat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  fs::path tmp;
  const int fd = create_temporary(flag, path, tmp);
  int err = 0;
  if (replacing && ::fchmod(fd, old.st_mode & 0777) != 0) err = errno;
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
  // rename() replaces whatever is at `path` without following it, so a link planted there since
  // the check is replaced, and its target is left alone.
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    os_failure(flag, path, "writing", err);
  }
}

std::string existing_path_problem(const fs::path& path, bool folder) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT && !path.is_absolute()) {
      std::error_code ec;
      (void)fs::current_path(ec);
      if (ec)
        return fmt::format("{}: the working folder cannot be found ({}; was it removed?)", path.string(), ec.message());
    }
    return fmt::format("{}: {}", path.string(), errno == ENOENT ? "does not exist" : path_error_text(errno));
  }
  if (folder && !S_ISDIR(st.st_mode)) return fmt::format("{}: is {}, not a folder", path.string(), kind_of(st.st_mode));
  if (!folder && S_ISDIR(st.st_mode)) return fmt::format("{}: is a folder; give a file", path.string());
  return "";
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
