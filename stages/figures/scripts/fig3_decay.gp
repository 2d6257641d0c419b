# Excess generalisation loss ε_g - σ² against α on log-log axes, theory and
# simulation, with the asymptote σ² α^{-1} (paper/spec.md §5: ε_g = σ² α/(α-1) for
# λ → 0, α > 1).
# Run after common.gp (caption, grid, bottom margin).
set key outside top center horizontal Left reverse maxcols 3 samplen 1.5 width -2 font ',7'
set autoscale xfix
set logscale xy
set format y '10^{%L}'
set xlabel 'sample ratio α = n/D'
set ylabel 'excess loss ε_g - σ^2'

plot datafile index 0 using 1:2 with lines lw 1.5 lc rgb '#d55e00' title titles[1], \
     datafile index 1 using 1:2:3 with yerrorbars pt 7 ps 0.5 lc rgb '#0072b2' title titles[2], \
     (x > 1 ? power_coef / x : NaN) with lines dt 2 lw 1.5 lc rgb 'black' title 'σ^2 α^{-1}'
