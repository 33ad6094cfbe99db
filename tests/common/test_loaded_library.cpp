// The loader's list of loaded objects (common/loaded_library.hpp), with zlib as the library: built
// twice, as PIE and without (RINGBENCH_TEST_NO_PIE). Without PIE, dladdr on an imported function names
// this executable, which is why libcupti's and libcudart's paths are asked of the loader instead.
#include <gtest/gtest.h>
#include <zlib.h>

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <string>

#include "common/loaded_library.hpp"

namespace rb {
namespace {

// Each build's cases under their own name, so ctest lists both.
#ifdef RINGBENCH_TEST_NO_PIE
#define RB_LOADED_LIBRARY_SUITE LoadedLibraryNoPie
#else
#define RB_LOADED_LIBRARY_SUITE LoadedLibrary
#endif

std::string own_executable() {
  char buf[PATH_MAX] = {};
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

TEST(RB_LOADED_LIBRARY_SUITE, NamesTheLibraryFileTheLoaderOpened) {
  ASSERT_NE(zlibVersion(), nullptr);  // zlib is linked, so loaded
  const std::string path = loaded_library_path("libz.so");
  ASSERT_FALSE(path.empty());
  EXPECT_TRUE(names_library(path, "libz.so")) << path;
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_NE(std::filesystem::canonical(path), std::filesystem::canonical(own_executable()));
}

TEST(RB_LOADED_LIBRARY_SUITE, AnImportedFunctionsAddressNamesTheExecutableWithoutPie) {
  Dl_info info{};
  ASSERT_NE(::dladdr(reinterpret_cast<void*>(&zlibVersion), &info), 0);
  ASSERT_NE(info.dli_fname, nullptr);
  const bool names_exe = std::filesystem::canonical(info.dli_fname) == std::filesystem::canonical(own_executable());
#ifdef RINGBENCH_TEST_NO_PIE
  // The trap the helper avoids: shown here so that this build is known to be the non-PIE one.
  EXPECT_TRUE(names_exe) << info.dli_fname;
#else
  EXPECT_FALSE(names_exe) << info.dli_fname;
#endif
  EXPECT_TRUE(names_library(loaded_library_path("libz.so"), "libz.so"));  // either way
}

TEST(RB_LOADED_LIBRARY_SUITE, NothingLoadedOrAnotherFileIsNotNamed) {
  EXPECT_EQ(loaded_library_path("libringbench-no-such-library.so"), "");
  EXPECT_EQ(loaded_library_path(""), "");
  EXPECT_TRUE(names_library("/usr/local/cuda/lib64/libcupti.so.13", "libcupti.so"));
  EXPECT_TRUE(names_library("libcupti.so", "libcupti.so"));
  EXPECT_FALSE(names_library("/opt/x/libcupti.so_backup", "libcupti.so"));
  EXPECT_FALSE(names_library("/opt/libcupti.so.13/test_binary", "libcupti.so"));  // the directory is not the file
  EXPECT_FALSE(names_library("/tmp/test_cupti_tracer", "libcupti.so"));
  EXPECT_FALSE(names_library("/usr/lib/libzstd.so.1", "libz.so"));
}

}  // namespace
}  // namespace rb
