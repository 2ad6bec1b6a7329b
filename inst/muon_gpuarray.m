## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {muonlab} {@var{D} =} muon_gpuarray (@dots{})
## A device array: an M x N or M x N x E array that lives on a device, made by
## @code{muon_gpu}, never by calling this constructor.
##
## @code{muon_ns}, @code{muon_update} and @code{polar_metrics} take device arrays;
## @code{muon_ns} and @code{muon_update} compute where the data lives and return device
## arrays, with no copy to the host.  @code{gather (@var{D})} copies the data to the host
## (double for a double array, single otherwise: a bf16 or fp16 array holds 16-bit values,
## which single represents exactly).
##
## Methods: @code{gather}, @code{size}, @code{ndims}, @code{rows}, @code{columns},
## @code{classUnderlying} (the storage class: @qcode{"double"}, @qcode{"single"},
## @qcode{"bf16"} or @qcode{"fp16"}; @code{class (@var{D})} is
## @qcode{"muon_gpuarray"}), @code{device} (@qcode{"cuda"}, or @qcode{"cpu"}: the stand-in
## device of the self-tests) and @code{disp}.  The read-only properties @code{Handle},
## @code{Size}, @code{Storage} and @code{Device} hold the same.
##
## A device array is a handle: copies of @var{D} share the data, which is freed when the
## last of them is cleared.  The functions never modify an array they are given; they
## return new ones.  After @code{clear mex} (or @code{clear all}, or
## @code{muon_gpu ("reset")}) every device array of the session is gone, and using one is
## the error @code{muonlab:staleHandle}.
##
## @seealso{muon_gpu, muon_ns, muon_update}
## @end deftypefn

classdef muon_gpuarray < handle

  properties (SetAccess = private)
    Handle = [];      # [SESSION ID] in __muon_gpu__'s table
    Size = [0 0];
    Storage = "";     # double | single | bf16 | fp16
    Device = "";      # cuda | cpu
  endproperties

  methods

    function D = muon_gpuarray (h, sz, storage, device)
      if (nargin != 4 || ! (isnumeric (h) && numel (h) == 2))
        error ("muonlab:badArg",
               "muon_gpuarray: make a device array with muon_gpu, e.g. muon_gpu (X).");
      endif
      D.Handle = h;
      D.Size = sz;
      D.Storage = storage;
      D.Device = device;
    endfunction

    function delete (D)
      if (! isempty (D.Handle))
        try
          __muon_gpu__ ("free", D.Handle);   # a stale handle is ignored there
        catch
        end_try_catch
      endif
    endfunction

    function X = gather (D)
      X = reshape (__muon_gpu__ ("gather", D.Handle), D.Size);
    endfunction

    function varargout = size (D, d)
      sz = D.Size;
      if (nargin > 1)                  # size (D, 3) of a matrix is 1, as Octave's
        full = [sz, ones(1, max (d(:)) - numel (sz))];
        varargout = {full(d)};
      elseif (nargout <= 1)
        varargout = {sz};
      else
        full = [sz, ones(1, nargout - numel (sz))];
        varargout = num2cell ([full(1:nargout-1), prod(full(nargout:end))]);
      endif
    endfunction

    function n = ndims (D)
      n = numel (D.Size);
    endfunction

    function r = rows (D)
      r = D.Size(1);
    endfunction

    function c = columns (D)
      c = D.Size(2);
    endfunction

    function c = classUnderlying (D)
      c = D.Storage;
    endfunction

    function d = device (D)
      d = D.Device;
    endfunction

    function disp (D)
      bytes = prod (D.Size) * struct ("double", 8, "single", 4, "bf16", 2, "fp16", 2).(D.Storage);
      printf ("  %s %s device array on %s (%s); gather () copies it to the host\n",
              strjoin (arrayfun (@num2str, D.Size, "uniformoutput", false), "x"),
              D.Storage, D.Device, bytes_text (bytes));
    endfunction

    function display (D)
      name = inputname (1);
      if (isempty (name))
        name = "ans";
      endif
      printf ("%s =\n\n", name);
      disp (D);
      printf ("\n");
    endfunction

  endmethods

endclassdef

function t = bytes_text (b)
  units = {"B", "KiB", "MiB", "GiB", "TiB"};
  k = min (max (floor (log2 (max (b, 1)) / 10), 0), numel (units) - 1);
  t = sprintf ("%.4g %s", b / 1024^k, units{k+1});
endfunction

%!demo
%! D = muon_gpu (magic (4), "Device", "cpu", "Class", "bf16")
%! size (D)
%! classUnderlying (D)
%! gather (D)

%!test
%! X = reshape (1:24, 2, 3, 4);
%! D = muon_gpu (X, "Device", "cpu");
%! assert (isa (D, "muon_gpuarray"));
%! assert (size (D), [2 3 4]);
%! assert (size (D, 3), 4);
%! assert (size (D, 4), 1);
%! [m, n] = size (D);
%! assert ([m n], [2 12]);
%! assert ([rows(D), columns(D), ndims(D)], [2 3 3]);
%! assert (classUnderlying (D), "double");
%! assert (device (D), "cpu");
%! assert (gather (D), X);
%! s = evalc ("disp (D)");
%! assert (! isempty (strfind (s, "2x3x4 double device array on cpu (192 B)")));

%!test
%! ## freed when the last reference goes; copies share the data
%! n0 = __muon_gpu__ ("count");
%! D = muon_gpu (ones (3), "Device", "cpu");
%! E = D;
%! assert (__muon_gpu__ ("count"), n0 + 1);
%! clear D
%! assert (__muon_gpu__ ("count"), n0 + 1);
%! assert (gather (E), ones (3));
%! clear E
%! assert (__muon_gpu__ ("count"), n0);

%!error <muon_gpuarray: make a device array with muon_gpu, e.g. muon_gpu \(X\).> muon_gpuarray ()
