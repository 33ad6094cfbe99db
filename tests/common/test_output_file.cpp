// Output paths: a device, a folder or a pipe is never replaced; a write is whole or absent, and an
// OS failure names the file and errno's text and leaves no temporary; the folder lock excludes a
// second writer until the first lets go. Symbolic links: an output that is one is refused, and a
// link planted where a temporary could be made is never followed; a written file gets the
// permissions a new file gets, or keeps those of the file it replaces. Devices are made by the test
// in its own folder (mknod): CI runs as root, and a regression must never be able to reach a system
// device.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <fcntl.h>
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

// Names a writer could have chosen without randomness: the one this build used to choose (pid and
// all, for this very process) and its neighbours. A link at any of them must stay a link, and its
// target must keep its text.
TEST_F(OutputFile, APlantedLinkAtAPredictableTemporaryIsNeverFollowed) {
  const auto victim = dir_ / "victim";
  std::ofstream(victim) << "secret";
  const auto out = dir_ / "out";
  fs::create_directories(out);
  std::vector<fs::path> links;
  for (const char* name : {".r.html.tmp", ".r.html~", "r.html.tmp", ".r.html.XXXXXX"}) links.push_back(out / name);
  for (int d = -2; d <= 64; ++d) links.push_back(out / (".r.html." + std::to_string(::getpid() + d) + ".tmp"));
  for (const auto& l : links) fs::create_symlink(victim, l);
  for (int i = 0; i < 3; ++i) write_output_file("-o", out / "r.html", "report " + std::to_string(i));
  EXPECT_EQ(read(victim), "secret");
  EXPECT_EQ(read(out / "r.html"), "report 2");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out / "r.html")));
  for (const auto& l : links) EXPECT_TRUE(fs::is_symlink(fs::symlink_status(l))) << l;
  // Nothing but the links and the report: no temporary left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()),
            static_cast<std::ptrdiff_t>(links.size() + 1));
}

TEST_F(OutputFile, AnOutputThatIsALinkIsRefusedAndLeftAsItIs) {
  const auto target = dir_ / "target.html";
  std::ofstream(target) << "theirs";
  fs::create_directory(dir_ / "folder");
  struct Case {
    std::string name, points_to, says;
  };
  const Case cases[] = {{"to-file", "target.html", "symbolic link to a file"},
                        {"to-folder", "folder", "symbolic link to a folder"},
                        {"dangling", "nowhere.html", "dangling symbolic link"},
                        {"loop", "loop", "symbolic link in a loop"}};
  for (const auto& c : cases) {
    const auto link = dir_ / c.name;
    fs::create_symlink(c.points_to, link);
    const std::string msg = input_error([&] { write_output_file("--json-out", link, "mine"); });
    EXPECT_NE(msg.find("--json-out"), std::string::npos) << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.says), std::string::npos) << c.name << ": " << msg;
    EXPECT_NE(msg.find("never written through a link"), std::string::npos) << msg;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))) << c.name;
    EXPECT_EQ(fs::read_symlink(link), c.points_to);
  }
  EXPECT_EQ(read(target), "theirs");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_ / "nowhere.html")));
  EXPECT_EQ(entries(), 6);  // target, folder, four links: no temporary
}

TEST_F(OutputFile, AFolderMayBeALinkToAFolderButNotADanglingOne) {
  fs::create_directory(dir_ / "real");
  fs::create_symlink("real", dir_ / "via");
  EXPECT_NO_THROW(make_output_dir("--out", dir_ / "via"));
  write_output_file("--out", dir_ / "via" / "results.json", "{}");
  EXPECT_EQ(read(dir_ / "real" / "results.json"), "{}");
  fs::create_symlink("gone", dir_ / "dangling");
  std::string msg = input_error([&] { make_output_dir("--out", dir_ / "dangling"); });
  EXPECT_NE(msg.find("dangling symbolic link"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(dir_ / "gone"));
  std::ofstream(dir_ / "plain") << "x";
  msg = input_error([&] { check_output_dir("--out", dir_ / "plain"); });
  EXPECT_NE(msg.find("is a file, not a folder"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("not a regular file"), std::string::npos) << msg;
}

TEST_F(OutputFile, ANewFileGetsTheUmasksModeAndAReplacedOneKeepsItsOwn) {
  struct Case {
    mode_t umask, expected;
  };
  for (const Case c : {Case{022, 0644}, Case{077, 0600}, Case{002, 0664}}) {
    const mode_t before = ::umask(c.umask);
    const auto p = dir_ / ("new-" + std::to_string(c.umask));
    write_output_file("--out", p, "x");
    ::umask(before);
    EXPECT_EQ(fs::status(p).permissions(), static_cast<fs::perms>(c.expected)) << std::oct << c.umask;
  }
  const auto kept = dir_ / "kept";
  std::ofstream(kept) << "old";
  fs::permissions(kept, static_cast<fs::perms>(0640));
  write_output_file("--out", kept, "new");
  EXPECT_EQ(read(kept), "new");
  EXPECT_EQ(fs::status(kept).permissions(), static_cast<fs::perms>(0640));
}

TEST_F(OutputFile, APathEndingInASlashNamesAFolderAndCreatesNothing) {
  for (const std::string& p :
       {(dir_ / "newdir/").string(), (dir_ / "a" / "b/").string(), std::string("."), (dir_ / "..").string()}) {
    const std::string msg = input_error([&] { write_output_file("-o", p, "x"); });
    EXPECT_NE(msg.find("names a folder"), std::string::npos) << p << ": " << msg;
  }
  EXPECT_EQ(entries(), 0);
}

TEST_F(OutputFile, ALongNameStillGetsATemporaryBesideIt) {
  const std::string name(250, 'n');
  write_output_file("--out", dir_ / name, "long");
  EXPECT_EQ(read(dir_ / name), "long");
  EXPECT_EQ(entries(), 1);
}

TEST_F(OutputFile, ARemovedWorkingFolderIsNamedNotAnOsError) {
  // In a child, so the test process keeps its working folder.
  const auto gone = dir_ / "gone";
  fs::create_directory(gone);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 0;
    if (::chdir(gone.c_str()) != 0 || ::rmdir(gone.c_str()) != 0) ::_exit(9);
    for (const auto& f : std::vector<std::function<void()>>{[] { check_output_file("-o", "r.html"); },
                                                            [] { check_output_dir("--out", "results"); },
                                                            [] { write_output_file("-o", "r.html", "x"); }}) {
      const std::string msg = input_error(f);
      if (msg.find("working folder cannot be found") == std::string::npos) code = 3;
    }
    // An absolute path does not depend on the working folder.
    try {
      write_output_file("-o", (gone.parent_path() / "abs.html").string(), "x");
    } catch (const std::exception&) {
      code = 4;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: a relative path was not refused with the reason, 4: an absolute one was";
  EXPECT_EQ(read(dir_ / "abs.html"), "x");
}

TEST_F(OutputFile, AnInputPathSaysWhyItCannotBeUsed) {
  fs::create_symlink("loop", dir_ / "loop");
  std::ofstream(dir_ / "file") << "x";
  EXPECT_NE(existing_path_problem(dir_ / "loop", false).find("symlink loop"), std::string::npos);
  EXPECT_NE(existing_path_problem(dir_ / "missing", false).find("does not exist"), std::string::npos);
  EXPECT_NE(existing_path_problem(dir_ / "file", true).find("is a file, not a folder"), std::string::npos);
  EXPECT_NE(existing_path_problem(dir_, false).find("is a folder"), std::string::npos);
  EXPECT_EQ(existing_path_problem(dir_ / "file", false), "");
  EXPECT_EQ(existing_path_problem(dir_, true), "");
}

// The one rule for outputs against inputs (check_outputs_apart): by file identity and by folder,
// before anything exists, whatever the spelling. Returns the refusal's flag, or "" when accepted.
TEST_F(OutputFile, AnOutputIsNoInputNoOtherOutputAndNothingInsideAnInputFolder) {
  const fs::path in = dir_ / "in.json", hist = dir_ / "hist", night = hist / "2026-11-01.json", out = dir_ / "out";
  std::ofstream(in) << "{}";
  fs::create_directories(hist);
  std::ofstream(night) << "{}";
  fs::create_symlink(hist, dir_ / "hist-link");
  fs::create_hard_link(night, dir_ / "night-hardlink.json");
  const auto refused_by = [](const std::vector<NamedPath>& ins, const std::vector<NamedPath>& outs) {
    try {
      check_outputs_apart(ins, outs);
    } catch (const InputError& e) {
      return e.where();
    }
    return std::string();
  };
  const NamedPath history{"history", hist, PathKind::folder};
  EXPECT_EQ(refused_by({{"IN", in}}, {{"--o", in}}), "--o");
  EXPECT_EQ(refused_by({{"IN", in}}, {{"--o", dir_ / "." / "in.json"}}), "--o");
  EXPECT_EQ(refused_by({history}, {{"--o", night}}), "--o");                          // a night of the history
  EXPECT_EQ(refused_by({history}, {{"--o", hist / "trend.html"}}), "--o");            // a new file among them
  EXPECT_EQ(refused_by({history}, {{"--o", dir_ / "hist-link" / "t.html"}}), "--o");  // through a link
  EXPECT_EQ(refused_by({history}, {{"--o", hist / "new" / "t.html"}}), "--o");        // a new folder inside
  EXPECT_EQ(refused_by({history}, {{"--o", dir_ / "night-hardlink.json"}}), "");      // a file's other name, beside
  EXPECT_EQ(refused_by({{"IN", night}}, {{"--o", dir_ / "night-hardlink.json"}}), "--o");  // ... is that file
  EXPECT_EQ(refused_by({history}, {{"--o", hist / ".." / "t.html"}}), "");
  EXPECT_EQ(refused_by({history}, {{"--o", dir_ / "histories.html"}}), "");  // a name that only starts alike
  // Outputs against each other: a file is no other file nor any folder; two folders may be one.
  EXPECT_EQ(refused_by({}, {{"--a", dir_ / "x"}, {"--b", dir_ / "x"}}), "--b");
  EXPECT_EQ(refused_by({}, {{"--out", out, PathKind::folder},
                            {"--out", out / "results.json"},
                            {"--dump", out / "results.json", PathKind::folder}}),
            "--dump");
  EXPECT_EQ(refused_by({}, {{"--dump", out / "results.json" / "q", PathKind::folder}, {"--out", out / "results.json"}}),
            "--out");
  EXPECT_EQ(refused_by({}, {{"--out", out, PathKind::folder}, {"--dump", out, PathKind::folder}}), "");
  EXPECT_EQ(refused_by({}, {{"--out", out, PathKind::folder}, {"--junit", out / "junit.xml"}}), "");
  EXPECT_EQ(refused_by({{"IN", in}}, {{"--o", ""}}), "");  // an output not asked for
  EXPECT_FALSE(fs::exists(out));                           // nothing is created by the check
}

}  // namespace
}  // namespace rb
