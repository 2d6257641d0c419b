// Talking to gnuplot: quoting values into its command language, wrapping a
// caption, running it, and making its PDF byte-reproducible. Used by the
// figures stage (stages/figures/figure_stage.h).
//
// Tested by //lib/figures:gnuplot_test.
#pragma once
#include <string>
#include <vector>

namespace potts::figures {

// gnuplot single-quoted string: a quote is doubled.
std::string gp_string(const std::string& s);
// A number gnuplot reads back exactly (17 digits; "NaN" if not finite; never
// an integer literal, so gnuplot does not switch to integer arithmetic).
std::string gp_number(double x);
// "array name[n] = [items...]; " (an empty array holds one empty string).
std::string gp_array(const std::string& name, const std::vector<std::string>& items);
// gnuplot double-quoted string (escapes \\ and \", newlines as \n).
std::string gp_dquoted(const std::string& s);
// Greedy word wrap at `width` characters (UTF-8 aware: counts code points).
std::vector<std::string> wrap(const std::string& text, std::size_t width);
// Replaces the wall-clock /CreationDate that pdfcairo stamps by the epoch
// (same width, so every xref offset stays valid).
void fix_pdf_date(const std::string& path);
// Runs gnuplot with `args` (args[0] = "gnuplot") in a UTF-8 locale; a
// failure is a StageError naming `script`.
void run_gnuplot(const std::vector<std::string>& args, const std::string& script);

}  // namespace potts::figures
