// Synthesis probe, not a core: the bare loop of one AES round per cycle through ECP5 block
// RAM in the T-table order (aes128_core with AES_TBOX_BRAM), with nothing else on the chip.
// Sixteen T-table RAMs (aes_tbox) read the next state; each next-state bit is the XOR of four
// RAM outputs and a register term. GATED=0: that is all, a 5-input function between RAMs
// (the RAM outputs are zeroed by the RAMs' own synchronous reset when idle, and held by their
// clock enable). GATED=1: the RAM outputs are also ANDed with a step/chain gate, as
// aes128_core must when a block is loaded fresh in the cycle another leaves (a 6-input
// function). Its Fmax bounds what any core built around this loop can reach on the device.
`default_nettype none
module tbox_round_loop #(
    parameter GATED = 0
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         hold,
    input  wire         idle,
    input  wire         gate,
    input  wire         last,
    input  wire [127:0] term,
    output wire [127:0] out_block
);
  wire [383:0] looked;   // this cycle's T-table entries, registered in the RAMs
  reg  [383:0] entries;
  wire [127:0] rounded;
  wire [127:0] next_state = (GATED != 0 ? rounded & {128{gate}} : rounded) ^ term;
  genvar i;
  for (i = 0; i < 16; i = i + 1) begin : g_tbox
    aes_tbox tbox (.in_index({last, next_state[127 - 8 * i -: 8]}), .out_entry(looked[383 - 24 * i -: 24]));
  end
  always @(posedge clk) if (!hold) entries <= (idle || reset) ? 384'h0 : looked;
  aes_tbox_mix mix (.entries(entries), .rounded(rounded));
  assign out_block = rounded;
endmodule
`default_nettype wire
