// Mask of the first `nbytes` octets of a beat of BYTES octets (octet 0 on top): zero
// padding for the MAC and no keystream beyond the data on the way out. Each octet's bit
// is its own compare with a constant (a LUT or two), not a subtract-and-shift carry chain.
`default_nettype none
module keep_mask #(
    parameter BYTES = 16,
    parameter NB_W  = $clog2(BYTES + 1)
) (
    input  wire [NB_W-1:0]    nbytes,
    output wire [8*BYTES-1:0] mask
);
  genvar i;
  generate
    for (i = 0; i < BYTES; i = i + 1) begin : g_octet
      localparam integer    AT_I = i;
      localparam [NB_W-1:0] AT = AT_I[NB_W-1:0];
      assign mask[8 * (BYTES - i) - 1 -: 8] = {8{nbytes > AT}};
    end
  endgenerate
endmodule
`default_nettype wire
