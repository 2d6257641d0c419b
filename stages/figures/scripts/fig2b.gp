# Figure 2b: the couplings J and the attention maps, each map scaled by its
# least-squares factor c against J, on one symmetric colour scale.
# Variables: datafile, caption, titles[], erec[], n_maps, cbmax, L.
set multiplot layout 1, n_maps margins 0.08, 0.89, plot_bottom, 0.80 spacing 0.02
set size ratio -1
unset key
set palette defined (-1 '#2166ac', 0 '#f7f7f7', 1 '#b2182b')
set cbrange [-cbmax:cbmax]
set xrange [-0.5:L-0.5]
set yrange [L-0.5:-0.5]
set tics scale 0.5 font ',6'
set xtics 0, 5
set ytics 0, 5
unset colorbox
set label 99 caption at screen 0.01, screen caption_y left font ',6' noenhanced
unset grid  # (common.gp) no grid over the maps
do for [i=1:n_maps] {
  if (i == 1) { set title titles[i]."\n " font ',8' } else { set title sprintf("%s\n(e_{rec} = %.2f)", titles[i], erec[i]) font ',8' }
  # Rows i and columns j of the L × L matrices (positions of the sequence);
  # the panels share the i axis, labelled on the first.
  set xlabel 'position j' offset 0, 0.5 font ',7'
  if (i == 1) { set ylabel 'position i' offset 1.5, 0 font ',7' } else { set ylabel ''; set format y '' }
  if (i == n_maps) { set colorbox user origin 0.91, 0.3 size 0.012, 0.5; set cbtics font ',6'; set cblabel 'J, c·A' font ',7' offset -1, 0 }
  plot datafile index (i-1) matrix with image
  unset label 99
}
unset multiplot
