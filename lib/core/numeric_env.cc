#include "lib/core/numeric_env.h"

#include <gnu/libc-version.h>
#include <unistd.h>

#include <cblas.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "lib/core/error.h"

namespace potts {

static bool equals_env(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

static bool unpinned() { return equals_env(kUnpinnedVariable, "1"); }

static bool pinned() {
  return equals_env("OPENBLAS_CORETYPE", kOpenblasCoretype) && equals_env("GLIBC_TUNABLES", kGlibcTunables);
}

void pin_numeric_environment(char** argv) {
  if (unpinned() || pinned()) return;
  // A second pass through here with the variables still unset would loop.
  if (equals_env("POTTS_NUMERICS_REEXEC", "1"))
    throw StageError(
        "could not pin the numeric libraries: OPENBLAS_CORETYPE and GLIBC_TUNABLES were not kept across exec");
  if (::setenv("OPENBLAS_CORETYPE", kOpenblasCoretype, 1) != 0 || ::setenv("GLIBC_TUNABLES", kGlibcTunables, 1) != 0 ||
      ::setenv("POTTS_NUMERICS_REEXEC", "1", 1) != 0)
    throw StageError("could not set OPENBLAS_CORETYPE / GLIBC_TUNABLES: " + std::string(std::strerror(errno)));
  ::execv("/proc/self/exe", argv);
  throw StageError(std::string("could not re-execute /proc/self/exe to pin the numeric libraries (") +
                   std::strerror(errno) + "); run with OPENBLAS_CORETYPE=" + kOpenblasCoretype +
                   " GLIBC_TUNABLES=" + kGlibcTunables + " set instead");
}

void check_numeric_environment() {
  ::unsetenv("POTTS_NUMERICS_REEXEC");  // not inherited by child processes' own pinning
  openblas_set_num_threads(1);
  if (unpinned()) return;
  const std::string core = openblas_get_corename();
  if (strcasecmp(core.c_str(), kOpenblasCoretype) != 0)
    throw StageError("OpenBLAS runs the '" + core + "' kernels although OPENBLAS_CORETYPE=" + kOpenblasCoretype +
                     " is set: results would depend on the CPU");
}

nlohmann::json numeric_environment() {
  nlohmann::json j;
  j["pinned"] = !unpinned() && pinned();
  j["OPENBLAS_CORETYPE"] = std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "";
  j["GLIBC_TUNABLES"] = std::getenv("GLIBC_TUNABLES") ? std::getenv("GLIBC_TUNABLES") : "";
  j["openblas_core"] = openblas_get_corename();
  j["openblas_threads"] = openblas_get_num_threads();
  j["glibc"] = gnu_get_libc_version();
  return j;
}

}  // namespace potts
