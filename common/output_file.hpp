// Every file and folder ringbench writes goes through here, so no flag can turn a write into the
// replacement of a device node, a folder or a pipe: an output path must be a regular file or not
// exist yet. Files are written whole or not at all (a temporary beside the target, then a rename),
// and an OS failure names the file and the OS's reason, leaving no temporary behind. A sweep's output
// folder is locked, so two sweeps never interleave their records in one results.jsonl.
//
// Symbolic links, one rule for every output: an output file that is a link (to a file, to nothing,
// or in a loop) is refused, never written through nor replaced, since either would surprise whoever
// made it. An output folder may be a link to a folder: files are made inside it, not through it.
// Temporaries get a random name and are created exclusively, so a link planted where one will be
// made is never followed.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

// Refuses, with an InputError naming `flag`: an empty path, a path that names a folder by its
// spelling (ends in '/', or is '.' or '..'), a symbolic link, a path that exists and is not a regular
// file (a folder, a device, a pipe, a socket), a relative path when the working folder was removed,
// and a path whose nearest existing ancestor is not a writable folder.
void check_output_file(const std::string& flag, const std::filesystem::path& path);

// What a command reads or writes at a path: one file, or a folder and everything under it (an
// input folder such as a nightly history or a node's folder; an output folder such as run's --out).
enum class PathKind { file, folder };

// A command's file or folder and the flag (or argument) that named it, for check_outputs_apart.
struct NamedPath {
  std::string flag;
  std::filesystem::path path;
  PathKind kind = PathKind::file;
};

// The one rule for a command's outputs against its inputs, checked before anything runs. Refuses,
// with an InputError naming the output's flag:
// - an output that is an input file, or that is or lies inside an input folder (a page written
//   into a nightly history would be read as a night; a file inside a node's folder as a node);
// - an output file that is another output file, or an output folder (run --dump O/results.json
//   beside --out O), or that lies under another output file.
// Two output folders may be one folder, and an output file may lie inside an output folder: the
// command lists the files it writes there. Paths are compared by file identity (device and inode,
// so links, `..` and other spellings are caught) where they exist, else by their canonical paths.
// Empty paths are left out.
void check_outputs_apart(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

// Refuses an empty path, a path that exists and is not a writable folder (a file, a dangling link,
// a link loop), a relative path when the working folder was removed, or one that cannot be created
// under its nearest existing ancestor. Creates nothing.
void check_output_dir(const std::string& flag, const std::filesystem::path& dir);

// Creates the folder (and its parents) after check_output_dir.
void make_output_dir(const std::string& flag, const std::filesystem::path& dir);

// Writes `text` to `path` atomically after check_output_file, creating missing parent folders. The
// file gets the permissions of the file it replaces, or those a new file gets (0666 less the
// umask). A failure of the OS (a full disk) throws rb::Error naming the file and errno's text.
void write_output_file(const std::string& flag, const std::filesystem::path& path, std::string_view text);
// The same for a file made of several parts (a header and a large array), without joining them.
void write_output_file(const std::string& flag, const std::filesystem::path& path,
                       std::initializer_list<std::string_view> parts);

// errno's text for a path, with a symlink loop named as one (strerror's "Too many levels of symbolic
// links" does not say that a link is the cause).
std::string path_error_text(int err);

// Why an input that must exist as a file (folder false) or a folder cannot be used, in the words of
// stat's error (a symlink loop is called one, where CLI11's ExistingFile says "File does not
// exist"); empty when it can. For CLI11's check() on input paths.
std::string existing_path_problem(const std::filesystem::path& path, bool folder);

// An exclusive advisory lock (flock) on an output folder, held while a sweep writes into it and
// released on destruction or when the process ends, however it ends. Creates the folder. A folder
// another process holds is an InputError naming `flag`.
class OutputDirLock {
 public:
  OutputDirLock(const std::string& flag, const std::filesystem::path& dir);
  ~OutputDirLock();
  OutputDirLock(const OutputDirLock&) = delete;
  OutputDirLock& operator=(const OutputDirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace rb
