// libFuzzer entry points, one per reader, chosen at compile time with
// -DFUZZ_<READER> (tools/fuzz builds and runs them with clang's
// -fsanitize=fuzzer,address,undefined). An entry point returns normally on
// success and on the project's StageError; any other exception escapes and
// libFuzzer reports it (as a crash on the uncaught exception).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/core/config.h"
#include "lib/core/error.h"
#include "lib/core/io.h"
#include "tests/util/config_accessors.h"

#if defined(FUZZ_FLAGS)
#include "stages/runtime/stage.h"
#endif
#if defined(FUZZ_SAMPLE_DATA)
#include "lib/potts/sample_data.h"
#endif
#if defined(FUZZ_GAUSSIAN_MODEL)
#include "lib/gaussian/gaussian.h"
#endif

// LeakSanitizer: libhdf5 (Debian 12, 1.10.8) leaks the object header it was
// decoding when a dataset's header is corrupt (allocated under H5Dopen2 ->
// H5O_protect -> H5C_protect, freed on no error path; H5Dopen2 fails, so no
// id of ours holds it). Third-party code only: leaks in project code are
// still reported.
extern "C" const char* __lsan_default_suppressions() { return "leak:libhdf5_serial.so\n"; }
// libhdf5 also mallocs metadata buffers of a length read from the file (a
// corrupt one asks for 2^48 bytes) and handles a NULL return as an error;
// ASan aborts on such requests unless malloc may return NULL, as it does
// outside ASan. Project code allocates with operator new, which this option
// does not turn into a NULL return.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace {

std::string scratch(const std::string& name) {
  static const std::string dir = [] {
    std::string d = "/dev/shm/potts_libfuzzer_" + std::to_string(::getpid());
    if (system(("mkdir -p " + d).c_str()) != 0) d = "/tmp";
    return d;
  }();
  return dir + "/" + name;
}

void write(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), long(size));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
#if defined(FUZZ_CONFIG)
    // Every accessor of Config on one document.
    potts::Config c = potts::Config::parse(text, "fuzz.json");
    potts::testing_util::read_every_accessor(c);
    potts::Config s = c.section("section");
    s.number("beta");
    s.finish();
    c.finish();
#elif defined(FUZZ_JSON)
    potts::parse_json(text, "fuzz.json");
#elif defined(FUZZ_CSV)
    const auto t = potts::parse_csv(text, "fuzz.csv");
    for (const char* col : {"M", "alpha", "realisation"})
      potts::csv_index(potts::csv_column(t, "fuzz.csv", col).empty() ? 0.0 : potts::csv_column(t, "fuzz.csv", col)[0],
                       1000000, "fuzz.csv");
#elif defined(FUZZ_HDF5)
    const std::string p = scratch("data.h5");
    write(p, data, size);
    potts::h5_check_finite(p, "data", potts::h5_read_matrix(p, "data"));
    potts::h5_read_imatrix(p, "sequences");
#elif defined(FUZZ_FLAGS)
    // Arguments separated by newlines.
    std::vector<std::string> args = {"stage"};
    std::istringstream in(text);
    for (std::string a; std::getline(in, a);) args.push_back(a);
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    potts::parse_stage_args("stage", "fuzz", int(args.size()), argv.data());
#elif defined(FUZZ_SAMPLE_DATA)
    // The input is the model file; train and test files are fixed (written once).
    static const bool once = [] {
      potts::H5Writer w;
      w.imatrix("sequences", arma::imat{{0, 1, 2}, {2, 1, 0}});
      w.save(scratch("seq.h5"));
      return true;
    }();
    (void)once;
    const std::string p = scratch("model.h5");
    write(p, data, size);
    potts::read_sample_data(p, scratch("seq.h5"), scratch("seq.h5"));
#elif defined(FUZZ_GAUSSIAN_MODEL)
    const std::string p = scratch("model.h5");
    write(p, data, size);
    potts::gaussian::read_model_h5(p);
#else
#error "compile with -DFUZZ_<READER> (see tools/fuzz)"
#endif
  } catch (const potts::StageError&) {
  }
  return 0;
}
