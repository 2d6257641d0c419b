// Stage proteins_a3m (paper/spec.md §9): an aligned FASTA file as A2M for
// proteins_prepare: A3M (HHblits, ColabFold: insertions in lower case, rows
// of different lengths) padded into the A2M it stands for
// (lib/proteins/formats.h), A2M passed through unchanged.
//
// Inputs: "msa/<file>".
// Config: {"format": "a3m" (the file's extension said so) or "auto" (A3M
// when its content is: lib/proteins/formats.h looks_like_a3m), "query": the
// prefix of the query's name ("": the first sequence, A3M's own query),
// "first_residue": the query's first residue number when its name carries
// no /start-end}.
// Outputs: msa.a2m alone (proteins_prepare takes one file under "msa/");
// the record's facts: whether it was converted, sequences, the query's
// name, its match columns.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_a3m(Stage& stage);

}  // namespace potts
