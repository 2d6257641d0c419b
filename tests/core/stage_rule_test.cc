// The `stage` rule (tools/stage.bzl): outputs and provenance land where the
// rule says, upstream files arrive under their key, and a record links to
// the upstream one by hash: the upstream's record is no input of the stage.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"

namespace potts {
namespace {

nlohmann::json prov(const std::string& name) {
  return nlohmann::json::parse(read_text("tests/core/" + name + "/provenance.json"));
}

TEST(StageRule, RecordsLinkByHashAndEmbedNothing) {
  auto up = prov("toy_up"), down = prov("toy_down");
  EXPECT_EQ(up["target"], "//tests/core:toy_up");
  EXPECT_EQ(down["seed"], 4);
  EXPECT_EQ(down["outputs"]["data.h5"]["sha256"], sha256_file("tests/core/toy_down/data.h5"));
  EXPECT_EQ(down["inputs"]["up/data.h5"]["sha256"], sha256_file("tests/core/toy_up/data.h5"));
  EXPECT_EQ(down["inputs"]["up/data.h5"]["sha256"], up["outputs"]["data.h5"]["sha256"]) << "the link by hash";
  EXPECT_FALSE(down["inputs"].contains("up/provenance.json")) << "a record is no input of a science stage";
  EXPECT_EQ(down["upstream"], nlohmann::json::object()) << "nothing embedded";
  EXPECT_EQ(down["config_sha256"], sha256_file("tests/core/toy.json"));
  // The code version comes from Bazel's workspace status (tools/workspace_status.sh).
  std::string v = down["code_version"];
  EXPECT_EQ(v.find("unknown"), std::string::npos) << v;
}

TEST(StageRule, DifferentSeedsDifferentData) {
  EXPECT_NE(sha256_file("tests/core/toy_up/data.h5"), sha256_file("tests/core/toy_down/data.h5"));
}

// A threaded stage gets --threads (the build setting's value, 1 unless set)
// and records it; its data are those of the same stage unthreaded.
TEST(StageRule, ThreadedStagesGetTheThreadCount) {
  auto plain = prov("toy_up"), threaded = prov("toy_threaded");
  auto arg = [](const nlohmann::json& p) {
    const auto& c = p["command"];
    for (std::size_t i = 0; i + 1 < c.size(); ++i)
      if (c[i] == "--threads") return c[i + 1].get<std::string>();
    return std::string("absent");
  };
  EXPECT_EQ("absent", arg(plain));
  EXPECT_EQ("1", arg(threaded));
  EXPECT_EQ(1, threaded["threads"]);
  EXPECT_EQ(sha256_file("tests/core/toy_up/data.h5"), sha256_file("tests/core/toy_threaded/data.h5"));
}

}  // namespace
}  // namespace potts
