## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{h} =} finish_figure (@var{fname}, @var{hf}, @var{file}, @var{keep}, @dots{})
## The end of a plotting function: print figure @var{hf} to @var{file} as a PNG with
## @code{print_png} when @var{file} is not empty (further arguments go to @code{print}),
## then return @var{hf} as @var{h} when @var{keep} (the caller asked for a handle), else
## close it when it was printed.  A print that fails closes the figure and rethrows, so a
## file that cannot be written leaves no figure behind.
## @end deftypefn

function h = finish_figure (fname, hf, file, keep, varargin)
  h = [];
  if (! isempty (file))
    try                                 # the caller's name never reaches a shell
      print_png (fname, hf, file, varargin{:});
    catch err
      close (hf);
      rethrow (err);
    end_try_catch
  endif
  if (keep)
    h = hf;
  elseif (! isempty (file))
    close (hf);
  endif
endfunction
