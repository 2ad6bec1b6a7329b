## -*- texinfo -*-
## @deftypefn {} {@var{s} =} family_scale (@var{rule}, @var{m}, @var{n})
## The shape factor of an m x n update under the @qcode{"Scale"} rule (the core's rules,
## the same names; used by the Octave-side algorithms of the Muon family): keller
## @code{sqrt (max (1, m/n))}, rms @code{0.2 sqrt (max (m, n))}, spectral
## @code{sqrt (max (m, n))}, unit_rms @code{sqrt (m/n)}, none 1.
## @end deftypefn

function s = family_scale (rule, m, n)
  switch (rule)
    case "keller"
      s = sqrt (max (1, m / n));
    case "rms"
      s = 0.2 * sqrt (max (m, n));
    case "spectral"
      s = sqrt (max (m, n));
    case "unit_rms"
      s = sqrt (m / n);
    otherwise
      s = 1;
  endswitch
endfunction
