// AES-128 round key 1 from the cipher key: the key half of round 1 (its state half drives
// nothing and synthesis removes it). The pipelined cores expand a stage ahead, so their
// input stage needs round key 1 beside the key.
`default_nettype none
module aes_round_key_1 (
    input  wire [127:0] key,
    output wire [127:0] round_key_1
);
  /* verilator lint_off UNUSEDSIGNAL */
  wire [127:0] round_1_state;
  /* verilator lint_on UNUSEDSIGNAL */
  aes_enc_rounds #(.R(1)) round_1 (
      .first_round(4'd1), .state_in(128'h0), .key_in(key),
      .state_out(round_1_state), .key_out(round_key_1)
  );
endmodule
`default_nettype wire
