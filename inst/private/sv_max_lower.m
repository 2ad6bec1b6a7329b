## -*- texinfo -*-
## @deftypefn {} {@var{s} =} sv_max_lower (@var{X})
## A lower bound of the largest singular value of each page of the M x N x P array
## @var{X}, 1 x P double: @code{norm (A * v)} for a unit v after 8 steps of the power method
## on A'A from the fixed start @code{cos (1:N)'} (no singular vector of an input is
## orthogonal to it but by construction), each page scaled by its largest magnitude first
## (no overflow for finite pages; NaN for a non-finite one).  Costs 16 matrix-vector
## products a page, on one OpenBLAS thread (the same bits on any machine).
## @end deftypefn

function s = sv_max_lower (X)
  restore = blas_one_thread ();
  [~, n, P] = size (X);
  s = zeros (1, P);
  v0 = cos (1:n)';
  v0 /= norm (v0);
  for k = 1:P
    A = X(:,:,k);                        # (single stays single: half the traffic)
    scale = max (abs (A(:)));
    if (! isfinite (scale))
      s(k) = NaN;
      continue;
    elseif (isempty (scale) || scale == 0)
      continue;
    endif
    A /= scale;
    v = v0;
    for it = 1:8
      w = A * v;
      s(k) = max (s(k), norm (w));
      u = A' * w;
      nu = norm (u);
      if (nu == 0)
        break;
      endif
      v = u / nu;
    endfor
    s(k) *= scale;
  endfor
endfunction
