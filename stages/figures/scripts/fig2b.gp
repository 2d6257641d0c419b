# Figure 2b: the couplings J and the attention maps. With own_scale each map
# has its own colour range: signed maps (J, factored A) a diverging palette
# symmetric about 0, positive maps (softmax attention) a sequential one from
# 0; otherwise every map is c·A on J's symmetric range.
# Variables: datafile, caption, titles[], erec[], map_lo[], map_hi[],
# own_scale, n_maps, cbmax, L.
left = 0.08; right = 0.95; gap = 0.065  # left: room for the i axis label
set multiplot layout 1, n_maps margins left, right, plot_bottom, 0.80 spacing gap
set size ratio -1
unset key
set xrange [-0.5:L-0.5]
set yrange [L-0.5:-0.5]
set tics scale 0.5 font ',6'
set xtics 0, 5
set ytics 0, 5
set label 99 caption at screen 0.01, screen caption_y left font ',6' noenhanced
unset grid  # (common.gp) no grid over the maps
do for [i=1:n_maps] {
  if (i == 1) { set title titles[i]."\n " font ',8' } else { set title sprintf("%s\n(e_{rec} = %.2f)", titles[i], erec[i]) font ',8' }
  lo = (i == 1 || !own_scale) ? -cbmax : map_lo[i]
  hi = (i == 1 || !own_scale) ? cbmax : map_hi[i]
  if (lo < 0) {
    m = (-lo > hi) ? -lo : hi
    set palette defined (-1 '#2166ac', 0 '#f7f7f7', 1 '#b2182b')
    set cbrange [-m:m]
  } else {
    set palette defined (0 '#f7f7f7', 1 '#b2182b')
    set cbrange [0:hi]
  }
  set xlabel 'position j' offset 0, 0.5 font ',7'
  if (i == 1) { set ylabel 'position i' offset 1.5, 0 font ',7' } else { set ylabel ''; set format y '' }
  # Each map's colour bar at its right, as tall as the map.
  if (own_scale || i == n_maps) { set colorbox default vertical; set cbtics font ',5' offset -0.8, 0 } else { unset colorbox }
  plot datafile index (i-1) matrix with image
  unset label 99
}
unset multiplot
