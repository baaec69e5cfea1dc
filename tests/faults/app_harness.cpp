// app_harness.cpp: see app_harness.h.
#include "app_harness.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/file_io.h"

extern char** environ;

namespace helix::faults {
namespace fs = std::filesystem;

std::string app_binary() {
  const char* from_environment = std::getenv("HELIX_APP_BINARY");
  return from_environment ? from_environment : HELIX_APP_BINARY;
}

std::string work_generator_binary() {
  const char* from_environment = std::getenv("HELIX_WU_BINARY");
  return from_environment ? from_environment : HELIX_WU_BINARY;
}

namespace {

// fork + execve of `binary arguments...` in `directory`, with the parent's
// environment plus `extra` ("NAME=value" replaces NAME), stdout to /dev/null
// and stderr appended to `stderr_path`. Everything the child needs is built
// before fork(): after it, only async-signal-safe calls.
pid_t spawn(const std::string& binary, const std::vector<std::string>& arguments, const std::string& directory,
            const std::vector<std::string>& extra, const std::string& stderr_path) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry; ++entry) {
    const std::string variable(*entry);
    const std::string name = variable.substr(0, variable.find('='));
    bool replaced = false;
    for (const std::string& mine : extra) replaced |= mine.substr(0, mine.find('=')) == name;
    if (!replaced) environment.push_back(variable);
  }
  environment.insert(environment.end(), extra.begin(), extra.end());
  std::vector<char*> argv = {const_cast<char*>(binary.c_str())};
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& variable : environment) envp.push_back(const_cast<char*>(variable.c_str()));
  envp.push_back(nullptr);

  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const int null = ::open("/dev/null", O_WRONLY);
  if (err < 0 || null < 0 || chdir(directory.c_str()) != 0) _exit(127);
  dup2(null, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  execve(binary.c_str(), argv.data(), envp.data());
  _exit(127);
}

int wait_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::uintmax_t file_size_or_zero(const std::string& path) {
  std::error_code error;
  const auto size = fs::file_size(path, error);
  return error ? 0 : size;
}

std::string text_from(const std::string& path, std::uintmax_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The texts between `open` and `close` in `text`, in order.
std::vector<std::string> elements(const std::string& text, const std::string& open, const std::string& close) {
  std::vector<std::string> found;
  for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    const std::size_t begin = at + open.size(), end = text.find(close, begin);
    if (end == std::string::npos) break;
    found.push_back(text.substr(begin, end - begin));
  }
  return found;
}

}  // namespace

std::string WorkUnit::input_path(const std::string& logical) const {
  for (const auto& [name, path] : inputs)
    if (name == logical) return path;
  throw std::runtime_error("work unit " + this->name + " has no input " + logical);
}

WorkGeneratorFailed::WorkGeneratorFailed(int exit_status, const std::string& stderr_text)
    : std::runtime_error("helix-wu failed (" + std::to_string(exit_status) + "): " + stderr_text),
      exit_status(exit_status),
      stderr_text(stderr_text) {}

void run_work_generator(const std::vector<std::string>& arguments, const std::string& dir) {
  const std::string log = dir + "/helix-wu.stderr";
  fs::create_directories(dir);
  const std::uintmax_t offset = file_size_or_zero(log);
  const int status = wait_status(spawn(work_generator_binary(), arguments, dir, {}, log));
  if (status != 0) throw WorkGeneratorFailed(status, text_from(log, offset));
}

WorkUnit read_work_unit(const std::string& dir, const std::string& name) {
  // The templates lie beside the WU's first input (workunit_writer.h).
  const std::string prefix = dir + "/" + name;
  const std::string wu_template = read_file_text(prefix + ".wu_template.xml");
  const std::string script = read_file_text(prefix + ".create_work.sh");
  const std::vector<std::string> logical = elements(wu_template, "<open_name>", "</open_name>");
  const std::vector<std::string> staged = elements(script, "bin/stage_file --copy \"$here/", "\"");
  if (logical.empty() || logical.size() != staged.size())
    throw std::runtime_error(prefix + ": " + std::to_string(logical.size()) + " input names for " +
                             std::to_string(staged.size()) + " staged files");
  const std::string result_template = read_file_text(prefix + ".result_template.xml");
  WorkUnit work_unit{name, {}, elements(result_template, "<open_name>", "</open_name>")};
  for (std::size_t i = 0; i < logical.size(); ++i)
    work_unit.inputs.emplace_back(logical[i], fs::absolute(dir + "/" + staged[i]).string());
  return work_unit;
}

ScratchDir::ScratchDir(const std::string& tag) {
  std::string pattern = (fs::temp_directory_path() / ("helix-faults-" + tag + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a scratch directory " + pattern);
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

Slot::Slot(const std::string& path, const WorkUnit& work_unit) : path_(path) {
  fs::create_directories(path_);
  for (const auto& [logical, physical] : work_unit.inputs)
    write_file_atomic(file(logical), "<soft_link>" + physical + "</soft_link>\n");
  write_file_atomic(file("init_data.xml"),
                    std::string("<app_init_data>\n<checkpoint_period>1</checkpoint_period>\n</app_init_data>\n"));
}

bool Slot::exists(const std::string& name) const { return fs::exists(file(name)); }

void Slot::clear_exit_notes() const {
  fs::remove(file("boinc_finish_called"));
  fs::remove(file("boinc_temporary_exit"));
}

AppProcess::AppProcess(const Slot& slot, const std::vector<std::string>& arguments,
                       const std::vector<std::string>& environment)
    : slot_(slot), stderr_offset_(file_size_or_zero(slot.file("stderr.txt"))) {
  started_ = std::chrono::steady_clock::now();
  pid_ = spawn(app_binary(), arguments, slot.path(), environment, slot.file("stderr.txt"));
  if (pid_ < 0) throw std::runtime_error("fork failed");
}

AppProcess::~AppProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait_status(pid_);
  }
}

bool AppProcess::exited() const {
  siginfo_t info{};
  // WNOWAIT: look without reaping; wait() collects the status later.
  return waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
}

void AppProcess::kill_now() const { ::kill(pid_, SIGKILL); }

AppExit AppProcess::wait() {
  AppExit result;
  result.status = wait_status(pid_);
  pid_ = -1;
  result.stderr_text = text_from(slot_.file("stderr.txt"), stderr_offset_);
  return result;
}

AppExit run_app(const Slot& slot, const std::vector<std::string>& arguments,
                const std::vector<std::string>& environment) {
  AppProcess app(slot, arguments, environment);
  return app.wait();
}

std::optional<CheckpointStamp> checkpoint_stamp(const Slot& slot) {
  struct stat info;
  if (::stat(slot.file("helix_checkpoint.state").c_str(), &info) != 0) return std::nullopt;
  return CheckpointStamp{static_cast<std::uintmax_t>(info.st_ino),
                         static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec};
}

bool wait_for_new_checkpoint(const Slot& slot, const AppProcess& app, std::optional<CheckpointStamp> previous,
                             std::chrono::seconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    if (app.exited()) return false;
    const auto now = checkpoint_stamp(slot);
    if (now && now != previous) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

Outputs read_outputs(const Slot& slot, const WorkUnit& work_unit) {
  Outputs outputs;
  for (const std::string& name : work_unit.outputs)
    if (slot.exists(name)) outputs[name] = read_file_bytes(slot.file(name));
  return outputs;
}

std::string outputs_diff(const Slot& slot, const WorkUnit& work_unit, const Outputs& reference, bool require_all) {
  std::string problems;
  const Outputs present = read_outputs(slot, work_unit);
  for (const std::string& name : work_unit.outputs) {
    const auto found = present.find(name);
    if (found == present.end()) {
      if (require_all) problems += "output " + name + " is missing\n";
      continue;
    }
    const auto expected = reference.find(name);
    if (expected == reference.end() || found->second != expected->second)
      problems += "output " + name + " exists with " + std::to_string(found->second.size()) +
                  " bytes that differ from the uninterrupted run's " +
                  (expected == reference.end() ? std::string("(none)") : std::to_string(expected->second.size())) +
                  "\n";
  }
  return problems;
}

int lines_containing(const std::string& text, const std::string& needle) {
  std::istringstream lines(text);
  int count = 0;
  for (std::string line; std::getline(lines, line);) count += line.find(needle) != std::string::npos;
  return count;
}

}  // namespace helix::faults
