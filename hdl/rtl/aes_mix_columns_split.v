// MixColumns (FIPS-197 5.1.3) of a gated state, as three parts whose XOR it is: MixColumns is
// linear, so MixColumns(in_state & gate) = part0 ^ part1 ^ part2 with the parts taken from a
// partition of each column's bits, found by search so that every output bit of a part
// depends on at most 3, 3 and 2 input bits. Kept apart (the caller's (* keep *) wires), each
// part with its gate is a LUT4 per bit at best, and the parts meet the rest of a next-state
// bit in that register's final LUT: the S-box -> register paths of the iterative cores.
`default_nettype none
module aes_mix_columns_split (
    input  wire [127:0] in_state,
    input  wire         gate,
    output wire [127:0] part0,
    output wire [127:0] part1,
    output wire [127:0] part2
);
  localparam [127:0] PART0 = {4{32'h4d24b390}}, PART1 = {4{32'h001b486f}};
  wire [127:0] gated = in_state & {128{gate}};
  aes_mix_columns mix_part0 (.in_state(gated & PART0), .out_state(part0));
  aes_mix_columns mix_part1 (.in_state(gated & PART1), .out_state(part1));
  aes_mix_columns mix_part2 (.in_state(gated & ~(PART0 | PART1)), .out_state(part2));
endmodule
`default_nettype wire
