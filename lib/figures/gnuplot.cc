#include "lib/figures/gnuplot.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "lib/core/error.h"
#include "lib/core/io.h"

extern char** environ;

namespace potts::figures {

// gnuplot single-quoted string: a quote is doubled.
std::string gp_string(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

std::string gp_number(double x) {
  if (!std::isfinite(x)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";  // keep gnuplot from integer arithmetic
  return s;
}

std::string gp_array(const std::string& name, const std::vector<std::string>& items) {
  std::string s = "array " + name + "[" + std::to_string(std::max<std::size_t>(items.size(), 1)) + "] = [";
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  if (items.empty()) s += "''";
  return s + "]; ";
}

// gnuplot double-quoted string (escapes \\ and \", newlines as \n).
std::string gp_dquoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '\\' || ch == '"') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

// Greedy word wrap at `width` characters (UTF-8 aware: counts code points).
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  auto length = [](const std::string& w) {
    std::size_t n = 0;
    for (unsigned char ch : w) n += (ch & 0xC0) != 0x80;
    return n;
  };
  std::vector<std::string> lines;
  std::string line;
  std::istringstream words(text);
  std::string w;
  while (words >> w) {
    if (!line.empty() && length(line) + 1 + length(w) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// pdfcairo (cairo 1.16) stamps /CreationDate with the wall clock and ignores
// SOURCE_DATE_EPOCH; the date has a fixed width, so replacing it by the epoch
// keeps every xref offset valid and makes the PDF byte-reproducible.
void fix_pdf_date(const std::string& path) {
  std::string pdf = read_text(path);
  const std::string tag = "/CreationDate (D:";
  auto at = pdf.find(tag);
  if (at == std::string::npos) return;
  auto start = at + tag.size();
  auto end = pdf.find(')', start);
  if (end == std::string::npos) return;
  const std::string stamp = pdf.substr(start, end - start);  // YYYYMMDDHHMMSS[Z|+hh'mm']
  std::string fixed = "19700101000000";
  fixed += stamp.size() > fixed.size() ? stamp.substr(fixed.size()) : "";
  if (fixed.size() != stamp.size()) return;
  for (std::size_t i = 14; i < fixed.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(fixed[i]))) fixed[i] = '0';
  pdf.replace(start, stamp.size(), fixed);
  write_text_atomic(path, pdf);
}

void run_gnuplot(const std::vector<std::string>& args, const std::string& script) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The action's environment plus a UTF-8 locale (the labels use Greek
  // letters; without it gnuplot's iconv warns on every run).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LC_ALL=", 7) != 0) env_strings.push_back(*e);
  env_strings.push_back("LC_ALL=C.UTF-8");
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv.data(), envp.data());
  if (rc != 0)
    throw StageError("cannot run gnuplot (" + std::string(std::strerror(rc)) +
                     "): install the Debian package gnuplot-nox (tools/bazel does)");
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw StageError(script + ": gnuplot failed (see its message above)");
}

}  // namespace potts::figures
