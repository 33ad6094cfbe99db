// Output paths: a device, a folder or a pipe is never replaced; a write is whole or absent, and an
// OS failure names the file and errno's text and leaves no temporary; the folder lock excludes a
// second writer until the first lets go. Devices are made by the test in its own folder (mknod):
// CI runs as root, and a regression must never be able to reach a system device.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.hpp"
#include "common/output_file.hpp"

namespace fs = std::filesystem;

namespace rb {
namespace {

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rb-output-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Everything in the folder but the named entries: temporaries left behind.
  int entries() { return static_cast<int>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }

  fs::path dir_;
};

std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(OutputFile, WritesNewAndRegularFilesWhole) {
  write_output_file("--out", dir_ / "sub" / "a.html", "first");
  EXPECT_EQ(read(dir_ / "sub" / "a.html"), "first");
  write_output_file("--out", dir_ / "sub" / "a.html", "second");
  EXPECT_EQ(read(dir_ / "sub" / "a.html"), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "sub"), fs::directory_iterator()), 1);
}

TEST_F(OutputFile, NeverReplacesADeviceAFolderOrAPipe) {
  const auto dev = dir_ / "null";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
  const auto fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& p : {dev, fifo, dir_}) {
    const std::string msg = input_error([&] { write_output_file("--json-out", p, "x"); });
    EXPECT_NE(msg.find("--json-out"), std::string::npos) << p;
    EXPECT_NE(msg.find("regular file or a new path"), std::string::npos) << msg;
  }
  struct stat st {};
  ASSERT_EQ(::stat(dev.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(), 2);  // no temporary beside them
}

TEST_F(OutputFile, RefusesAParentThatIsAFile) {
  std::ofstream(dir_ / "file") << "x";
  EXPECT_NE(input_error([&] { check_output_file("-o", dir_ / "file" / "r.html"); }).find("not a folder"),
            std::string::npos);
  EXPECT_NE(input_error([&] { check_output_dir("--out", dir_ / "file"); }).find("output folder must be a folder"),
            std::string::npos);
  EXPECT_NE(input_error([&] { check_output_dir("--dump", ""); }).find("--dump"), std::string::npos);
}

TEST_F(OutputFile, AFullDiskNamesTheOsErrorAndLeavesNoTemporary) {
  // A file size limit fails the write as a full disk does, in a child so the limit stays there.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    int code = 3;
    try {
      write_output_file("--out", dir_ / "big.html", std::string(1 << 20, 'x'));
    } catch (const InputError&) {
      code = 4;
    } catch (const Error& e) {
      const std::string msg = e.what();
      code = msg.find("File too large") != std::string::npos && msg.find("big.html") != std::string::npos ? 0 : 5;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: no error, 4: called bad input, 5: message lacks the OS error or the file";
  EXPECT_EQ(entries(), 0);
}

TEST_F(OutputFile, TheFolderLockExcludesASecondWriter) {
  const auto out = dir_ / "results";
  {
    OutputDirLock first("--out", out);
    EXPECT_TRUE(fs::is_directory(out));
    const std::string msg = input_error([&] { OutputDirLock second("--out", out); });
    EXPECT_NE(msg.find("another ringbench is writing into this folder"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(OutputDirLock again("--out", out));
}

}  // namespace
}  // namespace rb
