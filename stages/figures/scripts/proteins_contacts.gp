# Contact map of the real family: true contacts grey, factored attention's
# top-L pairs above the diagonal and PLM's below (filled: correct, open:
# incorrect). Residue numbers on both axes; square aspect.
# Run after common.gp (caption, grid, bottom margin).
set key outside top center horizontal Left reverse maxrows 3 samplen 1 width -4 font ',7'
set size ratio -1
set xlabel 'residue i'
set ylabel 'residue j'
set xrange [0:170]
set yrange [0:170]
set xtics 20
set ytics 20
plot datafile index 0 using 1:2 with points pt 5 ps 0.5 lc rgb '#c0c0c0' title titles[1], \
     datafile index 1 using 1:2 with points pt 7 ps 0.7 lc rgb '#0072b2' title titles[2], \
     datafile index 2 using 1:2 with points pt 6 ps 0.8 lw 0.8 lc rgb '#0072b2' title titles[3], \
     datafile index 3 using 1:2 with points pt 7 ps 0.7 lc rgb '#d55e00' title titles[4], \
     datafile index 4 using 1:2 with points pt 6 ps 0.8 lw 0.8 lc rgb '#d55e00' title titles[5], \
     x with lines lw 0.5 lc rgb '#888888' notitle
