// The gnuplot helpers: quoting that gnuplot reads back as written, numbers
// that round-trip, UTF-8-aware wrapping, and the reproducible PDF date.
#include "lib/figures/gnuplot.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include <gtest/gtest.h>

#include "lib/core/io.h"

namespace potts::figures {
namespace {

TEST(Gnuplot, QuotesStrings) {
  EXPECT_EQ(gp_string("it's"), "'it''s'");
  EXPECT_EQ(gp_dquoted("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(gp_array("t", {"'a'", "'b'"}), "array t[2] = ['a', 'b']; ");
  EXPECT_EQ(gp_array("t", {}), "array t[1] = ['']; ");
}

TEST(Gnuplot, NumbersRoundTripAndAreNeverIntegers) {
  EXPECT_EQ(gp_number(2), "2.0");
  EXPECT_EQ(gp_number(std::numeric_limits<double>::quiet_NaN()), "NaN");
  for (double x : {0.1, 1.0 / 3.0, 6.02214076e23, -1e-300})
    EXPECT_EQ(std::strtod(gp_number(x).c_str(), nullptr), x) << gp_number(x);
}

TEST(Gnuplot, WrapCountsCodePointsNotBytes) {
  // Five two-byte Greek letters per word: width 11 holds two words.
  const auto lines = wrap("ααααα βββββ γγγγγ", 11);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "ααααα βββββ");
  EXPECT_EQ(lines[1], "γγγγγ");
}

TEST(Gnuplot, PdfDateBecomesTheEpochAtTheSameWidth) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/x.pdf";
  const std::string before = "%PDF-1.5\n/CreationDate (D:20261123140501+01'00')\n%%EOF\n";
  write_text_atomic(path, before);
  fix_pdf_date(path);
  const std::string after = read_text(path);
  EXPECT_EQ(after, "%PDF-1.5\n/CreationDate (D:19700101000000+00'00')\n%%EOF\n");
  EXPECT_EQ(after.size(), before.size());
}

}  // namespace
}  // namespace potts::figures
