# Top-L precision of the heads sweep against the parameter count (log
# axis): factored attention with the seed spread as bars, the softmax
# configuration as points (both the couplings stage's protocol, filled),
# softmax attention in the observation's protocol (open, dashed), the
# baselines as lines. Run after common.gp.
set key outside top center horizontal Left reverse maxcols 2 samplen 1.5 width -2 font ',7'
set logscale x 10
set format x '10^{%L}'
set xlabel 'parameters'
set ylabel 'top-L precision'
set yrange [0:*]
set ytics 0.1
# Room above the highest line (the PLM's), which would sit on the frame.
set offsets 0, 0, graph 0.1, 0
set autoscale xfix
colours = "#0072b2 #cc79a7 #d55e00 #7b3294 #e69f00 #009e73 #56b4e9"
plot datafile index 0 using 1:2:5:6 with yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb word(colours, 1) title titles[1], \
     datafile index 1 using 1:2:5:6 with yerrorbars pt 5 ps 0.8 lw 1.5 lc rgb word(colours, 2) title titles[2], \
     datafile index 2 using 1:2:5:6 with yerrorlines pt 6 ps 1.2 lw 1.5 dt 2 lc rgb word(colours, 3) title titles[3], \
     for [s = 4:n_series] datafile index (s - 1) using 1:2 with lines dt int(s - 3) lw 1.2 lc rgb word(colours, s) title titles[s]
