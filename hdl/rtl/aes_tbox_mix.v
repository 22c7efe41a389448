// The T-table round order's combining step (aes128_core with AES_TBOX_BRAM): from the
// sixteen entries {2s, 3s, s} that aes_tbox gives for the state bytes, each output byte is
// the XOR of four, which is MixColumns(ShiftRows(SubBytes(state))), or ShiftRows(SubBytes)
// with the last-round entries {s, 0, 0}.
`default_nettype none
module aes_tbox_mix (
    input  wire [383:0] entries,  // entry of state byte i at [383 - 24i -: 24]
    output wire [127:0] rounded
);
  // Output byte (row j, column c) = 2s ^ 3s ^ s ^ s of the bytes ShiftRows brings to rows
  // j, j+1, j+2, j+3 of column c: for row k, state byte k % 4 + 4 * ((c + k) % 4).
  genvar i;
  generate
    for (i = 0; i < 16; i = i + 1) begin : g_column
      localparam integer J = i % 4, C = i / 4;
      localparam integer K0 = J, K1 = (J + 1) % 4, K2 = (J + 2) % 4, K3 = (J + 3) % 4;
      assign rounded[127 - 8 * i -: 8] =
          entries[383 - 24 * (K0 + 4 * ((C + K0) % 4)) -: 8] ^  // 2s (s in the last step)
          entries[375 - 24 * (K1 + 4 * ((C + K1) % 4)) -: 8] ^  // 3s
          entries[367 - 24 * (K2 + 4 * ((C + K2) % 4)) -: 8] ^  // s
          entries[367 - 24 * (K3 + 4 * ((C + K3) % 4)) -: 8];   // s
    end
  endgenerate
endmodule
`default_nettype wire
