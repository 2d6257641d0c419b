// Stage proteins_prepare (paper/spec.md §9): a protein family's alignment
// made ready for masked language modelling and contact scoring.
//
// Inputs: "msa/<file>" (A2M with Pfam's insert convention, flat aln, or a
// covariation benchmark family's FASTA with "query/<domain_sequences.txt>"
// and "indices/<file>": lib/proteins/covariation.h) and, optionally,
// "structure/<file>" (a PDB file of the query).
// Config: {"format": "a2m" | "aln" | "covariation", "query": name prefix
// (a2m), "first_residue": number (aln) or "pfam": the family's id
// (covariation), "identity": for weights and clusters (0.8),
// "test_fraction", "contact_cutoff" (Å), "min_separation"}; the seed draws
// the cluster order of the train/test split.
// Outputs:
//  * train.h5, test.h5: "sequences" (M x L states 0-20), "weights"
//    (80 %-identity weights within the whole alignment);
//  * train.aln: the training sequences as a flat alignment (query first if
//    it is in the training set), the input of freecontact;
//  * columns.csv: column, residue (the query's residue number), state (of
//    the query's letter);
//  * contacts.csv: i, j (residue numbers, i < j) of the structure's
//    contacts among the columns; no rows without a structure;
//  * summary.json: sizes, skipped sequences, N_eff, clusters, contacts.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_prepare(Stage& stage);

}  // namespace potts
