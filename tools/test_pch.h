// The headers most test sources parse, precompiled once per configuration
// (tools/test_pch.bzl). A test source still includes what it uses; this
// header only makes those includes cheap.

#include <gtest/gtest.h>

#include <armadillo>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>
