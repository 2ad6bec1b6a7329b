## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later
##
## This program is free software: you can redistribute it and/or modify it under the terms
## of the GNU General Public License as published by the Free Software Foundation, either
## version 3 of the License, or (at your option) any later version.

## -*- texinfo -*-
## @deftypefn  {muonlab} {} zero_plot_layout (@var{L})
## @deftypefnx {muonlab} {@var{h} =} zero_plot_layout (@var{L}, @qcode{"File"}, @var{file})
## Draw the flat buffer of a ZeRO layout coloured by owning rank.
##
## @var{L} is a layout from @code{zero_layout} (the result or its @code{struct}).  The bar is the flat buffer (element 0 at the
## left): each rank's elements in its colour, padding in grey, parameter boundaries as black
## lines (for at most 200 parameters), partition cuts as dashed lines (when there are at
## most 200; more of either would hide the colours), and row boundaries as short ticks at
## the bottom when the buffer is small enough to show them (2000 elements).  Up to 16 ranks, a legend names each rank's colour; with
## more, a colour bar maps colours to ranks.  The figure holds a bounded number of graphics
## objects whatever the world and the number of parameters: all the pieces are faces of one
## patch and each kind of line is one line object.  With more than 4000 pieces the bar is
## an image of 2000 columns, each the stack of the colours of its elements' owners in rank
## order (padding on top), each as high as its share of the column (to 1%): a rank that
## owns an eighth of every small matrix shows as an eighth of every column.  Each parameter is
## labelled above the bar with its name (@code{L.names} for a layout of a
## @code{muon_model}, or @qcode{"Names"}; else @qcode{"p1"}, @qcode{"p2"}, @dots{}) and
## shape; parameters that straddle a cut in red with a @qcode{"*"} and a red bracket (the
## brackets for at most 200 of them).
## Labels never overlap (and the key, beside the axes, never covers the bar): on two rows,
## straddling parameters first, then the largest; a label that does not fit is shortened
## (the name alone) or left out, and the title says how many were.  A torch name shows
## short: @qcode{"model.layers.3.self_attn.q_proj.weight"} as @qcode{"3.q_proj"}.
##
## With no display (@env{DISPLAY} unset) the figure is invisible and uses the gnuplot
## toolkit, so it works headless.  @var{h} is the figure handle.  Called with a
## @qcode{"File"} and no output argument, the figure is closed once written.
##
## Options (names are case-insensitive):
## @table @asis
## @item "File"
## a file name: the figure is also written there as a PNG (default @qcode{""}: not written).
## It is printed to a private temporary name and moved into place, so the name (any
## characters, quotes and @samp{$(...)} included) never reaches a shell.
## @item "Names"
## a cellstr of the parameters' names, one per parameter of @var{L} (default: @code{L.names}
## when it has them).
## @end table
##
## @example
## L = zero_layout (@{[3 4], [2 5], [4 4]@}, 2);
## zero_plot_layout (L, "File", "layout.png");
## @end example
## @seealso{zero_layout}
## @end deftypefn

function h = zero_plot_layout (L, varargin)

  if (nargin < 1)
    print_usage ();
  endif
  L = layout_plain (L);                 # (also one made before `clear functions`)
  need = {"stage", "world", "params", "ranks", "padded_total", "partition_size", "total"};
  if (! (isstruct (L) && isscalar (L) && all (isfield (L, need))))
    error ("muonlab:badArg",
           "zero_plot_layout: L must be a layout from zero_layout.");
  endif
  [~, ~, L] = zero_check_layout ("zero_plot_layout", L);
  o = parse_options ("zero_plot_layout", "zero_plot_layout", varargin);
  file = o.file;
  names = o.names;
  if (isempty (names) && isfield (L, "names"))
    names = L.names;
  endif
  P = numel (L.params);
  if (isempty (names))
    names = arrayfun (@(p) sprintf ("p%d", p), 1:P, "UniformOutput", false);
  elseif (! (iscellstr (names) && numel (names) == P))
    error ("muonlab:badArg", "zero_plot_layout: NAMES must be a cellstr of %d names.", P);
  else
    names = short_names (names);
  endif

  W = L.world;
  N = L.padded_total;
  S = L.partition_size;
  if (W <= 7)
    cmap = lines (7)(1:W,:);
  else
    cmap = rank_hues (W);
  endif
  grey = [0.8 0.8 0.8];

  hf = plot_figure ([]);
  set (hf, "position", [100 100 1000 360]);
  ax = axes ("parent", hf);
  hold (ax, "on");

  ## every rank's pieces (L.params' owner ranges) and the padding: one patch, a face each
  lo = cell (P + 1, 1);
  hi = lo;
  rk = lo;
  for p = 1:P
    q = L.params(p);
    lo{p} = q.offset + q.owner_ranges(:,1);
    hi{p} = q.offset + q.owner_ranges(:,2);
    rk{p} = q.owners(:) + 1;
  endfor
  if (L.stage == 3)
    k = [L.params.padded_numel] > [L.params.numel];
    lo{end} = [L.params(k).offset].' + [L.params(k).numel].';
    hi{end} = [L.params(k).offset].' + [L.params(k).padded_numel].';
  elseif (N > L.total)
    lo{end} = L.total;
    hi{end} = N;
  endif
  rk{end} = (W + 1) * ones (numel (lo{end}), 1);    # padding: the colour after the ranks'
  lo = vertcat (lo{:});
  hi = vertcat (hi{:});
  rk = vertcat (rk{:});
  present = unique (rk);                # the ranks with elements, and the padding
  colors = [cmap; grey];
  K = 2000;                             # about the bar's width in pixels, printed
  if (numel (lo) > 2 * K)
    ## more pieces than pixels: K columns, each the stack of its owners' shares (an image
    ## of H rows: the shares to 1 / H)
    H = 100;
    cidx = column_stacks (lo, hi, rk, N, K, W, H);
    image (ax, "xdata", [0.5, K - 0.5] * N / K, "ydata", [0.5, H - 0.5] / H,
           "cdata", cidx, "cdatamapping", "direct");
    colormap (ax, colors);
    set (ax, "ydir", "normal");
  else
    n = numel (lo);
    V = [lo zeros(n, 1); hi zeros(n, 1); hi ones(n, 1); lo ones(n, 1)];
    patch (ax, "faces", reshape (1:4*n, n, 4), "vertices", V, "facevertexcdata",
           colors(rk,:), "facecolor", "flat", "edgecolor", "none");
  endif

  ## row boundaries (small buffers only), partition cuts and parameter boundaries (at most
  ## 200 of each: more would blacken the bar): one line object each
  if (N <= 2000)
    x = arrayfun (@(q) q.offset + q.cols * (1:q.rows-1), L.params, "UniformOutput", false);
    vlines (ax, [x{:}], [0 0.12], [1 1 1], 0.5, "-");
  endif
  if (L.stage == 3 && P * (W - 1) <= 200)
    x = arrayfun (@(q) q.offset + q.padded_numel / W * (1:W-1), L.params,
                  "UniformOutput", false);
    vlines (ax, [x{:}], [-0.05 1.05], [0.3 0.3 0.3], 0.5, "--");
  elseif (L.stage < 3 && W - 1 <= 200)
    vlines (ax, S * (1:W-1), [-0.15 1.15], [0 0 0], 1, "--");
  endif
  if (P <= 200)                         # more would blacken the bar too (45868 matrices)
    edges = unique ([[L.params.offset], [L.params.offset] + [L.params.padded_numel]]);
    vlines (ax, edges, [-0.05 1.05], [0 0 0], 2, "-");
  endif

  ## labels: straddling parameters in red with a bracket; placed so that none overlap
  str = [L.params.straddles];
  if (any (str) && sum (str) <= 200)    # more would merge into one red band
    x0 = [L.params(str).offset];
    x1 = x0 + [L.params(str).numel];
    x = [x0; x0; x1; x1; NaN(size (x0))];
    y = repmat ([1.08; 1.14; 1.14; 1.08; NaN], 1, numel (x0));
    plot (ax, x(:), y(:), "r-", "linewidth", 2);
  endif
  full = arrayfun (@(p) sprintf ("%s%s %dx%d", names{p}, merge (str(p), "*", ""),
                                 L.params(p).rows, L.params(p).cols), 1:P,
                   "UniformOutput", false);
  short = arrayfun (@(p) [names{p} merge(str(p), "*", "")], 1:P, "UniformOutput", false);
  xm = [L.params.offset] + [L.params.numel] / 2;
  ## an element per character: the axes are about 700 of the figure's 1000 pixels wide,
  ## a character of the default font about 7
  unit = 7 / 700 * max (N, 1);
  lab = place_labels (xm, {full, short}, unit, [0 max(N, 1)], str, [L.params.numel]);
  ys = [1.24 1.38];
  for k = 1:numel (lab.text)
    p = lab.param(k);
    text ((lab.lo(k) + lab.hi(k)) / 2, ys(lab.row(k)), lab.text{k}, "parent", ax,
          "horizontalalignment", "center",
          "color", merge (str(p), [0.8 0 0], [0 0 0]),
          "fontweight", merge (str(p), "bold", "normal"), "interpreter", "none");
  endfor
  set (hf, "userdata", lab);

  nstr = sum ([L.params.straddles]);
  dropped = P - numel (lab.text);
  title (ax, sprintf (["ZeRO-%d layout: %d parameters, world %d, %d elements per rank, ", ...
                       "padding %d, %d straddling (*)%s"], L.stage, numel (L.params), W, S,
                      N - L.total, nstr,
                      merge (dropped > 0, sprintf ("; %d labels left out", dropped), "")));
  xlabel (ax, "flat buffer element (0-based; each matrix row-major)");
  set (ax, "ytick", [], "ylim", [-0.3 1.5], "xlim", [0 max(N, 1)]);
  ## the key: a legend entry per rank up to 16 ranks (a zero-area patch each), else a
  ## colour bar of the ranks
  haspad = any (present > W);
  if (W <= 16)
    hl = zeros (1, numel (present));
    for i = 1:numel (present)
      hl(i) = patch (ax, [0 0 0 0], [0 0 0 0], colors(present(i),:), "edgecolor", "none");
    endfor
    rn = arrayfun (@(r) sprintf ("rank %d", r), present - 1, "UniformOutput", false);
    if (haspad)
      rn{end} = "padding";
    endif
    legend (ax, hl, rn, "location", "eastoutside");
  else
    colormap (ax, colors(1:W+haspad,:));   # (padding grey at the top, for a sampled bar)
    caxis (ax, [-0.5, W - 0.5 + haspad]);
    cb = colorbar (ax, "location", "eastoutside");
    ylabel (cb, merge (haspad, "rank (padding grey)", "rank"));
  endif
  hold (ax, "off");

  h = finish_figure ("zero_plot_layout", hf, file, nargout > 0);
endfunction

## Torch names made short for a label: "model.layers.3.self_attn.q_proj.weight" -> "3.q_proj",
## "model.embed_tokens.weight" -> "embed_tokens", "...experts.7.w2.weight" -> "3.e7.w2".
function s = short_names (names)
  s = regexprep (names, '\.weight$', "");
  s = regexprep (s, '^model\.', "");
  s = regexprep (s, '^layers\.(\d+)\.(self_attn|mlp|block_sparse_moe)\.', "$1.");
  s = regexprep (s, 'experts\.(\d+)\.', "e$1.");
endfunction

## Label positions: for each parameter in order of priority (straddling first, then the
## largest), the first of its texts (full, short) whose width (characters x UNIT
## elements) fits, inside XLIM, in one of two rows without touching a label already
## placed there; none fits: left out.  LAB has param, text, row, lo, hi per placed label.
function lab = place_labels (xm, texts, unit, xlim, str, sz)
  [~, order] = sortrows ([-double(str(:)), -sz(:)]);
  lab = struct ("param", [], "text", {{}}, "row", [], "lo", [], "hi", []);
  gap = unit;
  for p = order(:).'
    done = false;
    for t = 1:numel (texts)
      w = numel (texts{t}{p}) * unit;
      lo = min (max (xm(p) - w / 2, xlim(1)), xlim(2) - w);
      hi = lo + w;
      if (lo < xlim(1) - 1e-9)
        continue;
      endif
      for r = 1:2
        k = lab.row == r;
        if (all (hi + gap <= lab.lo(k) | lo >= lab.hi(k) + gap))
          lab.param(end+1) = p;
          lab.text{end+1} = texts{t}{p};
          lab.row(end+1) = r;
          lab.lo(end+1) = lo;
          lab.hi(end+1) = hi;
          done = true;
          break;
        endif
      endfor
      if (done)
        break;
      endif
    endfor
  endfor
endfunction

## Vertical lines at X from Y(1) to Y(2): one line object, the lines separated by NaN.
## W rank colours, hues spread over 85% of the circle: hsv (W) wraps round, so its last
## ranks come back to rank 0's red.  Saturation and value 0.85 keep them off white.
function cmap = rank_hues (W)
  cmap = hsv2rgb ([(0:W-1)' / W * 0.85, 0.85 * ones(W, 2)]);
endfunction

function vlines (ax, x, y, color, width, style)
  if (isempty (x))
    return;
  endif
  x = x(:).';
  xs = [x; x; NaN(size (x))];
  ys = repmat ([y(:); NaN], 1, numel (x));
  plot (ax, xs(:), ys(:), "color", color, "linewidth", width, "linestyle", style);
endfunction


## The bar at K columns of N / K elements (more pieces than pixels), from the pieces
## [lo, hi) of owner colours rk (1 .. W + 1, padding last): cidx, H x K, the colour of
## each pixel, each column the stack of the colours of its elements (rank order, bottom
## up), each as high as its share of the column, rounded to 1 / H.
function cidx = column_stacks (lo, hi, rk, N, K, W, H)
  w = N / K;
  a = min (floor (lo / w), K - 1);      # the first and last column each piece touches
  b = max (min (ceil (hi / w) - 1, K - 1), a);
  cnt = b - a + 1;                      # sum (cnt) <= 2 * numel (lo) + K: the columns
  pc = repelem ((1:numel (lo)).', cnt);   # inside a piece are its alone
  col = a(pc) + (1:numel (pc)).' - repelem (cumsum (cnt) - cnt, cnt) - 1;
  amt = max (min (hi(pc), (col + 1) * w) - max (lo(pc), col * w), 0);
  A = sparse (col + 1, rk(pc), amt, K, W + 1);   # column x colour: elements
  [r, c, v] = find (A.');               # by column, then by colour
  cs = cumsum (v);
  first = [true; diff(c) != 0];
  last = [first(2:end); true];
  grp = cumsum (first);
  base = cs(first) - v(first);
  total = cs(last) - base;
  edge = round (H * (cs - base(grp)) ./ total(grp));   # H at each column's last colour
  below = [0; edge(1:end-1)];
  below(first) = 0;
  cidx = (W + 1) * ones (H, K);         # (a column of nothing: none, but padding)
  cidx(:, c(first)) = reshape (repelem (r, edge - below), H, []);
endfunction
%!test
%! ## 3000 parameters: no boundary lines over the colours (the bar was solid black)
%! L = zero_layout (repmat ({[4 4]}, 1, 3000), 8);
%! h = zero_plot_layout (L);
%! unwind_protect
%!   ax = findall (h, "type", "axes", "tag", "");
%!   assert (isempty (findall (ax, "type", "line", "linewidth", 2, "color", [0 0 0])));
%!   c = get (findall (ax, "type", "patch"), "facevertexcdata");
%!   [~, k] = max (cellfun (@rows, c));       # the bar (the legend's swatches are patches)
%!   assert (rows (unique (c{k}, "rows")), 8);  # every rank's colour shows
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect

%!test
%! ## sampled bars show each owner's share: 3000 matrices of 64 x 64 at stage 3 over 8
%! ## ranks, each rank an eighth of every matrix, an eighth of the bar (a colour per
%! ## column's middle drew ranks 2 and 6 only, half the bar each); 5 x 3 over 7 ranks:
%! ## ranks 0-4 own 3 of 21 elements a matrix, ranks 5 and 6 none, 6 are padding
%! for c = {{[64 64], 8, [ones(8, 1) / 8; 0]}, {[5 3], 7, [3 * ones(5, 1); 0; 0; 6] / 21}}
%!   [sz, W, share] = c{1}{:};
%!   L = zero_layout (repmat ({sz}, 1, 3000), W, "Stage", 3);
%!   h = zero_plot_layout (L);
%!   unwind_protect
%!     ax = findall (h, "type", "axes", "tag", "");
%!     im = findall (ax, "type", "image");
%!     C = get (im, "cdata");              # colour indices: rank + 1, padding W + 1
%!     assert (get (im, "cdatamapping"), "direct");
%!     cmap = [merge(W <= 7, lines (7)(1:min (W, 7),:), hsv2rgb ([(0:W-1)' / W * 0.85, ones(W, 2) * 0.85])); 0.8 0.8 0.8];
%!     assert (colormap (ax), cmap);
%!     assert (accumarray (C(:), 1, [W + 1, 1]) / numel (C), share, 0.01);
%!   unwind_protect_cleanup
%!     close (h);
%!   end_unwind_protect
%! endfor

%!test
%! L = zero_layout ({[3 4], [2 5], [4 4]}, 2);
%! f = [tempname() ".png"];
%! unwind_protect
%!   h = zero_plot_layout (L, "File", f);
%!   assert (ishghandle (h));
%!   s = dir (f);
%!   assert (! isempty (s) && s.bytes > 1000);
%! unwind_protect_cleanup
%!   if (exist ("h", "var") && ishghandle (h))
%!     close (h);
%!   endif
%!   if (exist (f, "file"))
%!     delete (f);
%!   endif
%! end_unwind_protect

%!test
%! L = zero_layout ({[3 4], [2 5], [4 4]}, 4, "Stage", 3, "Order", "size_desc");
%! f = [tempname() ".png"];
%! unwind_protect
%!   h = zero_plot_layout (L, "file", f);
%!   s = dir (f);
%!   assert (s.bytes > 1000);
%! unwind_protect_cleanup
%!   close (h);
%!   delete (f);
%! end_unwind_protect

%!test
%! ## two Llama-3.1-8B layers over 8 ranks: torch's names, short; no two labels overlap
%! M = muon_model ("llama-3.1-8b");
%! k = strcmp (M.params.route, "muon") & M.params.layer <= 1;
%! L = zero_layout ([M.params.rows(k), M.params.cols(k)], 8);
%! h = zero_plot_layout (L, "Names", M.params.name(k));
%! unwind_protect
%!   lab = get (h, "userdata");
%!   assert (any (strcmp (lab.text, "0.q_proj 4096x4096")) || any (strcmp (lab.text, "0.q_proj")));
%!   assert (! any (strncmp (lab.text, "p", 1)));
%!   for r = 1:2
%!     [lo, j] = sort (lab.lo(lab.row == r));
%!     hi = lab.hi(lab.row == r)(j);
%!     assert (all (hi(1:end-1) <= lo(2:end)), "labels overlap in row %d", r);
%!   endfor
%!   ## every straddling matrix is labelled, and a label covers its own matrix's middle
%!   st = find ([L.params.straddles]);
%!   assert (all (ismember (st, lab.param)));
%!   t = get (get (h, "children")(end), "title");
%!   assert (numel (lab.text) <= nnz (k));
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect

%!test
%! ## a large layout (1000 ranks, stage 3, 30 matrices: 30000 pieces, 29970 cuts) holds a
%! ## bounded number of graphics objects: one image of 2000 columns, one line object per
%! ## kind of line, a colour bar instead of 1000 legend entries
%! L = zero_layout (repmat ({[64 64]}, 1, 30), 1000, "Stage", 3);
%! h = zero_plot_layout (L);
%! unwind_protect
%!   ax = findall (h, "type", "axes", "tag", "");
%!   assert (isempty (findall (ax, "type", "patch")));
%!   im = findall (ax, "type", "image");
%!   assert (size (get (im, "cdata")), [100 2000]);
%!   assert (numel (findall (ax, "type", "line")) <= 3);   # boundaries, brackets
%!   assert (numel (findall (ax, "type", "text")) <= 70);  # the labels, two rows
%!   assert (isempty (findall (h, "tag", "legend")));
%!   assert (numel (findall (h, "type", "axes", "tag", "colorbar")), 1);
%!   assert (numel (findall (h)) < 100);
%!   ## 30 matrices: their boundaries are drawn (3000 would blacken the bar: see below)
%!   xd = get (findall (ax, "type", "line", "linewidth", 2, "color", [0 0 0]), "xdata");
%!   assert (numel (unique (xd(isfinite (xd)))), 31);
%!   ## the bar's colours: each column's are the owners of its elements (zero_layout's
%!   ## ranges), bottom up in rank order, padding on top, each its share of the column
%!   C = get (im, "cdata");                           # colour indices into colormap (ax)
%!   assert (colormap (ax), [hsv2rgb([(0:999)' * 0.85e-3, 0.85 * ones(1000, 2)]); 0.8 0.8 0.8], 1e-15);
%!   cm = colormap (ax);                 # the last rank is not rank 0's red again (hsv (W))
%!   assert (norm (cm(1000,:) - cm(1,:)) > 0.5);
%!   w = L.padded_total / 2000;                       # 75 elements a column
%!   for col = round (linspace (1, 2000, 25))
%!     own = zeros (w, 1);
%!     for i = 1:w
%!       x = (col - 1) * w + i - 0.5;
%!       q = L.params(find ([L.params.offset] <= x, 1, "last"));
%!       e = x - q.offset;
%!       if (e >= q.numel)
%!         own(i) = 1001;                               # padding
%!       else
%!         own(i) = q.owners(q.owner_ranges(:,1) <= e & e < q.owner_ranges(:,2)) + 1;
%!       endif
%!     endfor
%!     [o, ~, j] = unique (own);
%!     want = repelem (o, round (100 * cumsum (accumarray (j, 1)) / w) ...
%!                        - round (100 * [0; cumsum(accumarray (j, 1))(1:end-1)] / w));
%!     assert (C(:,col), want(:));
%!   endfor
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect

%!test
%! ## a small layout: a face per piece, a legend entry per rank, every cut drawn
%! L = zero_layout ({[3 4], [2 5], [4 4]}, 4, "Stage", 3);
%! h = zero_plot_layout (L);
%! unwind_protect
%!   ax = findall (h, "type", "axes", "tag", "");
%!   pt = findall (ax, "type", "patch");
%!   F = arrayfun (@(p) rows (get (p, "faces")), pt);
%!   npieces = sum (arrayfun (@(q) rows (q.owner_ranges), L.params));
%!   npad = sum ([L.params.padded_numel] > [L.params.numel]);
%!   assert (max (F), npieces + npad);            # the bar
%!   assert (numel (pt), 1 + 4 + (npad > 0));     # and the legend's swatches
%!   assert (numel (findall (h, "type", "axes", "tag", "legend")), 1);
%!   cuts = findall (ax, "type", "line", "linestyle", "--");
%!   assert (nnz (isnan (get (cuts, "xdata"))), 3 * 3);  # W - 1 per matrix
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect

%!error <zero_plot_layout: cannot write '/nonexistent-muonlab/x.png': no such folder.>
%! n = numel (get (0, "children"));
%! unwind_protect
%!   zero_plot_layout (zero_layout ({[3 4]}, 2), "File", "/nonexistent-muonlab/x.png");
%! unwind_protect_cleanup
%!   assert (numel (get (0, "children")), n);        # no figure left behind
%! end_unwind_protect

%!error <zero_plot_layout: NAMES must be a cellstr of 3 names.> zero_plot_layout (zero_layout ({[3 4], [2 5], [4 4]}, 2), "Names", {"a"})
%!error <zero_plot_layout: L must be a layout from zero_layout.> zero_plot_layout (1)
%!error <zero_plot_layout: FILE must be a file name.> zero_plot_layout (zero_layout ({[2 2]}, 1), "File", 3)
%!error <^zero_plot_layout: unknown option 'Foo'\. Options: .*\.$> zero_plot_layout (zero_layout ({[2 2]}, 1), "Foo", 3)
%!error <zero_plot_layout: options must be NAME, VALUE pairs.> zero_plot_layout (zero_layout ({[2 2]}, 1), "File")

%!demo
%! ## Three matrices over two ranks: the 2 x 5 one straddles the cut at element 20.
%! L = zero_layout ({[3 4], [2 5], [4 4]}, 2);
%! zero_plot_layout (L);
