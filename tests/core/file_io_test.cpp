// file_io_test.cpp: write_file_atomic() on a full disk. /dev/full fails every
// write with a real ENOSPC; a symlink <path>.tmp -> /dev/full makes the atomic
// write's temp file land there, so the test needs no privileges and no mount.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include <gtest/gtest.h>
#include <stdlib.h>

#include "core/errors.h"
#include "core/file_io.h"

namespace fs = std::filesystem;
using helix::StorageFull;
using helix::read_file_text;
using helix::write_file_atomic;

namespace {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "helix-file-io-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Points <path>.tmp at /dev/full: the next write_file_atomic(path) gets ENOSPC.
void fill_disk_under(const std::string& path) { fs::create_symlink("/dev/full", path + ".tmp"); }

}  // namespace

TEST(WriteFileAtomic, WritesTheBytes) {
  ScratchDir dir;
  write_file_atomic(dir.file("out"), std::string("helix\n"));
  EXPECT_EQ(read_file_text(dir.file("out")), "helix\n");
  EXPECT_FALSE(fs::exists(dir.file("out.tmp")));
}

TEST(WriteFileAtomic, FullDiskThrowsStorageFullAndLeavesNothing) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  ScratchDir dir;
  fill_disk_under(dir.file("out"));
  try {
    write_file_atomic(dir.file("out"), std::string(100000, 'x'));
    FAIL() << "no exception on a full disk";
  } catch (const StorageFull& error) {
    EXPECT_NE(std::string(error.what()).find(std::strerror(ENOSPC)), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs::exists(dir.file("out")));
  EXPECT_FALSE(fs::is_symlink(dir.file("out.tmp")));  // the temp file is removed
}

TEST(WriteFileAtomic, FullDiskKeepsTheOldFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  ScratchDir dir;
  write_file_atomic(dir.file("checkpoint"), std::string("old state"));
  fill_disk_under(dir.file("checkpoint"));
  EXPECT_THROW(write_file_atomic(dir.file("checkpoint"), std::string("new state")), StorageFull);
  EXPECT_EQ(read_file_text(dir.file("checkpoint")), "old state");
}

// Other failures are not a full disk: they stay std::runtime_error.
TEST(WriteFileAtomic, MissingDirectoryIsNotStorageFull) {
  ScratchDir dir;
  try {
    write_file_atomic(dir.file("no/such/dir/out"), std::string("x"));
    FAIL() << "no exception for a missing directory";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(typeid(error), typeid(std::runtime_error)) << error.what();
  }
}

// MappedFile: a file's bytes in place, the same as read_file_text()'s.
TEST(MappedFile, HoldsTheFilesBytes) {
  ScratchDir dir;
  std::string text = ">a one\nACDE\n>b\nWY\n";
  text.push_back('\0');  // any byte, as read_file_text() keeps it
  text += std::string(3 * 4096 + 17, 'K');  // more than a page, not a whole number of them
  write_file_atomic(dir.file("chunk.fa"), text);
  const helix::MappedFile mapped(dir.file("chunk.fa"));
  EXPECT_EQ(mapped.text(), text);
  EXPECT_EQ(mapped.text(), read_file_text(dir.file("chunk.fa")));
}

TEST(MappedFile, EmptyFileIsEmptyText) {
  ScratchDir dir;
  write_file_atomic(dir.file("empty"), std::string());
  EXPECT_TRUE(helix::MappedFile(dir.file("empty")).text().empty());
}

TEST(MappedFile, MissingFileOrDirectoryIsInputError) {
  ScratchDir dir;
  try {
    helix::MappedFile missing(dir.file("absent.fa"));
    FAIL() << "a missing file was mapped";
  } catch (const helix::InputError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot open " + dir.file("absent.fa")), std::string::npos) << error.what();
  }
  fs::create_directory(dir.file("folder"));
  EXPECT_THROW(helix::MappedFile(dir.file("folder")), helix::InputError);
}
