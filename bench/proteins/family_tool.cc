// Helpers of the CCMpred comparison (ccmpred_compare.sh), so that both
// programs see the same sequences and both are scored by the project's code:
//
//   family_tool aln OUT.aln FAMILY.h5...   the "sequences" of each file, in
//                                          order, as a flat alignment
//   family_tool precision FAMILY_DIR SCORES
//       top-L, L/2 and L/5 precision (|i - j| >= 6, residue numbers), as the
//       score stage computes it, of SCORES: an HDF5 file's "scores" (the
//       couplings stage) or a whitespace L x L matrix (CCMpred's output),
//       against FAMILY_DIR's columns.csv and contacts.csv; one JSON line.
//   family_tool agreement FAMILY_DIR SCORES_A SCORES_B
//       the fraction of A's top-L pairs (|i - j| >= 6) that are among B's
//       top-L: how far two programs agree, whatever the structure; one JSON
//       line.
//   family_tool paired FAMILY_DIR A1.h5[,A2.h5...] B1.h5[,B2.h5...]
//       the difference of A's and B's top-L precision (|i - j| >= 6, each the
//       mean over its fits) with its paired standard error
//       (lib/proteins/paired.h), as the score stage's "paired"; one JSON
//       line. For fits that are no longer in the DAG (docs/history.md).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <armadillo>

#include "lib/core/io.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"
#include "lib/proteins/paired.h"

using namespace potts;

static int usage() {
  std::cerr << "usage: family_tool aln OUT.aln FAMILY.h5...\n"
               "       family_tool precision FAMILY_DIR SCORES(.h5 or text matrix)\n"
               "       family_tool agreement FAMILY_DIR SCORES_A SCORES_B\n"
               "       family_tool paired FAMILY_DIR A1.h5[,A2.h5...] B1.h5[,B2.h5...]\n";
  return 2;
}

// The columns' residue numbers and the contacts of FAMILY_DIR (the prepare
// stage's columns.csv and contacts.csv).
static void read_family_truth(const std::string& dir, std::vector<int>& numbers, std::set<std::pair<int, int>>& truth) {
  const auto columns = read_csv(dir + "/columns.csv");
  for (double r : csv_column(columns, dir + "/columns.csv", "residue")) numbers.push_back(int(r));
  const auto contacts = read_csv(dir + "/contacts.csv");
  const auto& ci = csv_column(contacts, dir + "/contacts.csv", "i");
  const auto& cj = csv_column(contacts, dir + "/contacts.csv", "j");
  for (std::size_t k = 0; k < ci.size(); ++k) truth.insert({int(ci[k]), int(cj[k])});
}

// An L x L score matrix: an HDF5 file's "scores" (the couplings stage) or a
// whitespace matrix (CCMpred's output).
static arma::mat load_scores(const std::string& path, std::size_t L) {
  arma::mat scores;
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".h5") == 0)
    scores = h5_read_matrix(path, "scores");
  else if (!scores.load(path, arma::raw_ascii))
    throw std::runtime_error(path + ": expected a whitespace matrix of numbers");
  if (scores.n_rows != L || scores.n_cols != L)
    throw std::runtime_error(path + ": " + std::to_string(scores.n_rows) + " x " + std::to_string(scores.n_cols) +
                             ", expected " + std::to_string(L) + " x " + std::to_string(L) + " (the family's columns)");
  return scores;
}

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  try {
    if (cmd == "aln" && argc >= 4) {
      arma::imat all;
      for (int k = 3; k < argc; ++k) {
        const arma::imat s = h5_read_imatrix(argv[k], "sequences");
        all = all.n_elem ? arma::imat(arma::join_cols(all, s)) : s;
      }
      write_text_atomic(argv[2], proteins::to_aln(all));
      std::printf("%llu sequences, %llu columns\n", (unsigned long long)all.n_rows, (unsigned long long)all.n_cols);
      return 0;
    }
    if (cmd == "paired" && argc == 5) {
      const std::string dir = argv[2];
      std::vector<int> numbers;
      std::set<std::pair<int, int>> truth;
      read_family_truth(dir, numbers, truth);
      auto load = [](const std::string& list) {
        std::vector<arma::mat> out;
        std::size_t a = 0;
        while (a <= list.size()) {
          const std::size_t b = std::min(list.find(',', a), list.size());
          out.push_back(h5_read_matrix(list.substr(a, b - a), "scores"));
          a = b + 1;
        }
        return out;
      };
      const proteins::PairedDifference d =
          proteins::paired_precision_difference(load(argv[3]), load(argv[4]), numbers, truth, 1.0, 6);
      std::printf("{\"difference\": %.6f, \"jackknife_se\": %.6f, \"seeds_se\": %.6f, \"standard_error\": %.6f}\n",
                  d.difference, d.jackknife_se, d.seeds_se, d.standard_error);
      return 0;
    }
    if (cmd == "agreement" && argc == 5) {
      std::vector<int> numbers;
      std::set<std::pair<int, int>> truth;
      read_family_truth(argv[2], numbers, truth);
      const std::size_t L = numbers.size();
      const auto a = proteins::ranked_pairs(load_scores(argv[3], L), numbers, 6);
      const auto b = proteins::ranked_pairs(load_scores(argv[4], L), numbers, 6);
      const std::size_t k = std::min({L, a.size(), b.size()});
      const std::set<std::pair<arma::uword, arma::uword>> top_b(b.begin(), b.begin() + long(k));
      std::size_t shared = 0;
      for (std::size_t n = 0; n < k; ++n) shared += top_b.count(a[n]);
      std::printf("{\"top_L_agreement\": %.6f, \"pairs\": %zu}\n", k ? double(shared) / double(k) : 0.0, k);
      return 0;
    }
    if (cmd == "precision" && argc == 4) {
      const std::string dir = argv[2], path = argv[3];
      std::vector<int> numbers;
      std::set<std::pair<int, int>> truth;
      read_family_truth(dir, numbers, truth);
      const std::size_t L = numbers.size();
      const arma::mat scores = load_scores(path, L);
      std::printf("{\"top_L\": %.6f, \"top_L2\": %.6f, \"top_L5\": %.6f}\n",
                  proteins::precision_at(scores, numbers, truth, L, 6),
                  proteins::precision_at(scores, numbers, truth, L / 2, 6),
                  proteins::precision_at(scores, numbers, truth, L / 5, 6));
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "family_tool: error: " << e.what() << "\n";
    return 1;
  }
  return usage();
}
