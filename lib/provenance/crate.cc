#include "lib/provenance/crate.h"

#include <algorithm>

#include "lib/provenance/internal.h"
#include "lib/provenance/results.h"

namespace potts::provenance {

const char* const kCrate = "ro-crate-metadata.json";

namespace {

using json = nlohmann::json;

constexpr const char* kProfiles = "https://w3id.org/ro/wfrun/";

json id_ref(const std::string& id) { return {{"@id", id}}; }

// "bazel-out/k8-opt/bin/stages/sample/sample" -> "stages/sample/sample".
std::string short_path(const std::string& path) {
  const auto bin = path.find("/bin/");
  return path.rfind("bazel-out/", 0) == 0 && bin != std::string::npos ? path.substr(bin + 5) : path;
}

std::string schema_type(const json& v) {
  if (v.is_boolean()) return "Boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "Integer";
  if (v.is_number()) return "Float";
  if (v.is_string()) return "Text";
  return "StructuredValue";  // an object or array, given as its JSON text
}

struct Builder {
  const json& files;  // the manifest's
  const json& code;   // the manifest's code fingerprints (an object, maybe empty)
  std::map<std::string, json> entities;

  void add(const json& e) { entities[e["@id"].get<std::string>()].update(e); }

  // A file by path and hash: results/' own file if it holds those bytes
  // there, else a local entity for a file outside the crate.
  json file(const std::string& dest, const std::string& path, const std::string& sha256, const std::string& what) {
    if (!dest.empty() && files.contains(dest) && files[dest].value("sha256", std::string()) == sha256)
      return id_ref(dest);
    const std::string id = "#" + path + "@" + sha256.substr(0, 12);
    add({{"@id", id}, {"@type", "File"}, {"name", path}, {"sha256", sha256}, {"description", what}});
    return id_ref(id);
  }

  // The stage binary: one SoftwareApplication per binary (its SHA-256),
  // with every code version it was built at and its toolchain.
  std::string tool(const json& r) {
    const std::string sha = r.value("tool_sha256", std::string("unknown"));
    const json cmd = r.value("command", json::array());
    const std::string path = cmd.empty() ? "unknown" : short_path(cmd[0].get<std::string>());
    const std::string id = "#tool-" + sha.substr(0, 12);
    json reqs = json::array();
    const json toolchain = r.value("toolchain", json::object());
    for (const auto& [name, v] : toolchain.items()) {
      const std::string tid = "#toolchain-" + name;
      add({{"@id", tid},
           {"@type", "SoftwareApplication"},
           {"name", name},
           {"softwareVersion", v.is_string() ? v.get<std::string>() : v.dump()}});
      reqs.push_back(id_ref(tid));
    }
    json versions = entities.count(id) ? entities[id].value("softwareVersion", json::array()) : json::array();
    const std::string cv = r.value("code_version", std::string());
    if (std::find(versions.begin(), versions.end(), cv) == versions.end()) versions.push_back(cv);
    std::sort(versions.begin(), versions.end());
    add({{"@id", id},
         {"@type", "SoftwareApplication"},
         {"name", path},
         {"sha256", sha},
         {"softwareVersion", versions},
         {"softwareRequirements", reqs},
         {"description", "a stage binary of the pipeline; softwareVersion: the commits it was built at"}});
    return id;
  }

  // The configuration's top-level keys and the seed: PropertyValues of the
  // run, each the value of a FormalParameter of the tool.
  json parameters(const std::string& run, const std::string& tool_id, const json& r) {
    json config = r.value("config", json::object());
    if (config.is_object()) config.erase("_comment");
    config["seed"] = r.value("seed", json());
    json out = json::array();
    for (const auto& [key, v] : config.items()) {
      const std::string param = tool_id + "-param-" + key;
      add({{"@id", param},
           {"@type", "FormalParameter"},
           {"name", key},
           {"additionalType", schema_type(v)},
           {"valueRequired", true}});
      json& inputs = entities[tool_id]["input"];
      if (std::find(inputs.begin(), inputs.end(), id_ref(param)) == inputs.end()) inputs.push_back(id_ref(param));
      const std::string pv = run + "-" + key;
      add({{"@id", pv},
           {"@type", "PropertyValue"},
           {"name", key},
           {"value", v.is_string() ? v : json(v.dump())},
           {"exampleOfWork", id_ref(param)}});
      out.push_back(id_ref(pv));
    }
    return out;
  }

  void run(const std::string& rel, const json& r) {
    const std::string target = r.value("target", std::string("?")), stage = r.value("stage", std::string());
    const std::string id = "#run-" + rel.substr(rel.find('/') + 1);
    const std::string tool_id = tool(r);
    json object = json::array(), result = json::array();
    const json inputs = r.value("inputs", json::object()), outputs = r.value("outputs", json::object());
    for (const auto& [key, in] : inputs.items()) {
      const std::string path = in.value("path", std::string());
      const bool generated = internal::generated_path(path);
      object.push_back(file("", path, in.value("sha256", std::string()),
                            generated ? "an output of an upstream stage as read (" + key + "); not in this crate"
                                      : "a source file of the repository at the code version (" + key + ")"));
    }
    object.push_back(file("", r.value("config_file", std::string()), r.value("config_sha256", std::string()),
                          "the stage's configuration file"));
    for (const auto& p : parameters(id, tool_id, r)) object.push_back(p);
    for (const auto& [key, out] : outputs.items())
      result.push_back(file(destination(target, stage, key), out.value("path", std::string()),
                            out.value("sha256", std::string()), "an output not copied to results/ (" + key + ")"));
    result.push_back(id_ref(rel));
    add({{"@id", id},
         {"@type", "CreateAction"},
         {"name", "Stage " + target},
         {"instrument", id_ref(tool_id)},
         {"object", object},
         {"result", result},
         {"endTime", r.value("finished_utc", std::string())},
         {"actionStatus", id_ref("http://schema.org/CompletedActionStatus")},
         {"description", "wall time " + json(r.value("wall_seconds", 0.0)).dump() + " s on " +
                             json(r.value("threads", 1)).dump() + " thread(s)"}});
    const std::string step = "#step-" + target;
    add({{"@id", step}, {"@type", "HowToStep"}, {"name", target}, {"workExample", id_ref(tool_id)}});
    if (code.contains(target) && code[target].is_object()) {
      // MANIFEST.json's code fingerprint of the step's tool.
      const json& c = code[target];
      const std::string source =
          "#source-" + c.value("tool", std::string("?")) + "@" + c.value("code_sha256", std::string());
      add({{"@id", source},
           {"@type", "SoftwareSourceCode"},
           {"name", c.value("tool", std::string("?"))},
           {"identifier", "sha256:" + c.value("code_sha256", std::string())},
           {"description", "the SHA-256 of the sha256sum listing of its " + json(c.value("code_files", json())).dump() +
                               " source files, as MANIFEST.json records it"}});
      entities[step]["isBasedOn"] = id_ref(source);
    }
    add({{"@id", "#control-" + id.substr(5)},
         {"@type", "ControlAction"},
         {"name", "orchestrate " + target},
         {"instrument", id_ref(step)},
         {"object", id_ref(id)}});
  }
};

void add_root(Builder& b, const std::string& published) {
  json parts = json::array(), mentions = json::array(), steps = json::array(), tools = json::array();
  for (const auto& [rel, m] : b.files.items()) {
    parts.push_back(id_ref(rel));
    b.add({{"@id", rel},
           {"@type", "File"},
           {"sha256", m.value("sha256", std::string())},
           {"contentSize", std::to_string(m.value("bytes", std::uint64_t(0)))}});
  }
  for (const auto& [id, e] : b.entities) {
    const std::string type = e.value("@type", std::string());
    if (type == "CreateAction" || type == "ControlAction") mentions.push_back(id_ref(id));
    if (type == "HowToStep") steps.push_back(id_ref(id));
    if (id.rfind("#tool-", 0) == 0 && id.find("-param-") == std::string::npos) tools.push_back(id_ref(id));
  }
  json profiles = json::array();
  for (const auto& [p, name] : std::map<std::string, std::string>{{"process/0.5", "Process Run Crate"},
                                                                  {"workflow/0.5", "Workflow Run Crate"},
                                                                  {"provenance/0.5", "Provenance Run Crate"}}) {
    b.add({{"@id", kProfiles + p}, {"@type", "CreativeWork"}, {"name", name}, {"version", "0.5"}});
    profiles.push_back(id_ref(kProfiles + p));
  }
  b.add({{"@id", "ro-crate-metadata.json"},
         {"@type", "CreativeWork"},
         {"about", id_ref("./")},
         {"conformsTo", id_ref("https://w3id.org/ro/crate/1.2")}});
  b.add({{"@id", "./"},
         {"@type", "Dataset"},
         {"name", "Every result of the paper's DAG (//paper:all)"},
         {"description",
          "Figures, stage summaries, tables and provenance records reproducing Rende, Gerace, Laio "
          "and Goldt, Phys. Rev. Research 6, 023057 (2024). Generated from MANIFEST.json and the "
          "records in provenance/."},
         {"datePublished", published},
         {"license", id_ref("#license")},
         {"conformsTo", profiles},
         {"mainEntity", id_ref("#pipeline")},
         {"hasPart", parts},
         {"mentions", mentions}});
  b.add({{"@id", "#license"},
         {"@type", "CreativeWork"},
         {"name", "no licence stated"},
         {"description",
          "The project states no licence for these results; the Pfam families of the covariation "
          "benchmark carry their own (third_party/covariation)."}});
  b.add({{"@id", "#pipeline"},
         {"@type", json::array({"SoftwareSourceCode", "ComputationalWorkflow", "HowTo"})},
         {"name", "The paper's DAG of Bazel stages (//paper:all)"},
         {"programmingLanguage", id_ref("#bazel")},
         {"hasPart", tools},
         {"step", steps}});
  b.add({{"@id", "#bazel"}, {"@type", "ComputerLanguage"}, {"name", "Bazel"}, {"url", "https://bazel.build/"}});
}

}  // namespace

json run_crate(const json& manifest, const std::map<std::string, json>& records) {
  json code = manifest.value("code", json::object());
  if (!code.is_object()) code = json::object();
  Builder b{manifest.at("files"), code};
  std::string published;
  for (const auto& [rel, r] : records) {
    b.run(rel, r);
    published = std::max(published, r.value("finished_utc", std::string()));
  }
  add_root(b, published);
  json graph = json::array();
  for (const auto* first : {"ro-crate-metadata.json", "./"}) graph.push_back(b.entities.at(first));
  for (const auto& [id, e] : b.entities)
    if (id != "ro-crate-metadata.json" && id != "./") graph.push_back(e);
  return {{"@context", "https://w3id.org/ro/crate/1.2/context"}, {"@graph", graph}};
}

std::string crate_text(const json& crate) { return crate.dump(2) + "\n"; }

}  // namespace potts::provenance
