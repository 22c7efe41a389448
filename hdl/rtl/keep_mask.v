// Mask of the first `nbytes` octets of a beat of BYTES octets (octet 0 on top): zero
// padding for the MAC and no keystream beyond the data on the way out.
`default_nettype none
module keep_mask #(
    parameter BYTES = 16,
    parameter NB_W  = $clog2(BYTES + 1)
) (
    input  wire [NB_W-1:0]    nbytes,
    output wire [8*BYTES-1:0] mask
);
  localparam integer    BYTES_I = BYTES;
  localparam [NB_W-1:0] FULL = BYTES_I[NB_W-1:0];
  wire [NB_W-1:0] empty = FULL - nbytes;
  assign mask = ~{8*BYTES{1'b0}} << {empty, 3'b000};
endmodule
`default_nettype wire
