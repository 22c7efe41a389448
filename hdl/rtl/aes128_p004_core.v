// Seed paper 004's AES-128 core as published (Ahmad and Ismail, "Performance comparison of
// AES-128 algorithms for WiMAX application with improved power-throughput"; its figures in
// reports/published/ahmad_ismail_aes128_wimax.json): encryption and decryption selected by
// `mode`, one round per call with the round number `count` driven from outside, parallel
// 128-bit state and key in and out (Table 3), S-boxes as ROM tables in LUTs, and the round
// key out for the next call's AddRoundKey and, decrypting, the inverse key expansion.
//
// The round runs sequentially over three clock cycles (the paper's Virtex5 latency, Table 5
// and Fig. 6): (1) the inputs are registered, round 1 adding the cipher key (encrypt) or
// round key 10 (decrypt) to the state on the way in; (2) SubBytes (decrypt: InvShiftRows,
// InvSubBytes) and SubWord(RotWord) of the key's last word from the S-box ROMs;
// (3) ShiftRows, MixColumns and AddRoundKey with the round key made from the key input
// (decrypt: the inverse key-expansion step, AddRoundKey, InvMixColumns), into the output
// registers. Outputs appear three cycles after the inputs; a block is Nr = 10 calls, each
// feeding state_out and outkey back: 3 x 10 = 30 cycles (the paper's Eq. 2). The three
// stages hold three calls at once, so three blocks may be interleaved (10 cycles a block).
//
// Table 3's pins on the buses: state_in = {s00, s10, s20, s30, s01, ..., s33} (byte i is
// row i % 4, column i / 4: FIPS-197's input order, bits [127-8i -: 8]); inkey =
// {inkey_c0, inkey_c1, inkey_c2, inkey_c3}; state_out (s00_enc..s33_enc) and outkey
// likewise. Encrypt call r (1..10): inkey = round key r-1 (the cipher key at r = 1), outkey =
// round key r. Decrypt call r: inkey = round key 11-r (round key 10 at r = 1), outkey =
// round key 10-r; the last call's outkey is the cipher key.
`default_nettype none
module aes128_p004_core (
    input  wire         clk,
    input  wire         reset,
    input  wire [3:0]   count,      // the round, 1..10
    input  wire         mode,       // 0 encrypt, 1 decrypt
    input  wire [127:0] inkey,
    input  wire [127:0] state_in,
    output reg  [127:0] outkey,
    output reg  [127:0] state_out
);
  // Cycle 1: the inputs, with the first round's key addition.
  reg [3:0]   count_1;
  reg         mode_1;
  reg [127:0] key_1;
  reg [127:0] state_1;

  always @(posedge clk) begin
    if (reset) begin
      count_1 <= 4'd0;
      mode_1  <= 1'b0;
      key_1   <= 128'h0;
      state_1 <= 128'h0;
    end else begin
      count_1 <= count;
      mode_1  <= mode;
      key_1   <= inkey;
      state_1 <= count == 4'd1 ? state_in ^ inkey : state_in;
    end
  end

  // Cycle 2: the S-box ROMs. Decrypting, the key word substituted is the previous round
  // key's last word, w3 ^ w2 of this one.
  wire [127:0] sub_bytes, inv_shifted, inv_sub_bytes;
  wire [31:0]  key_word = mode_1 ? key_1[31:0] ^ key_1[63:32] : key_1[31:0];
  wire [31:0]  key_sub;
  aes_enc_sub enc_sub (.state_in(state_1), .key_word(key_word), .sub_bytes(sub_bytes), .key_sub(key_sub));
  genvar i;
  generate
    for (i = 0; i < 16; i = i + 1) begin : g_inv
      // InvShiftRows: byte (row r, column c) comes from column (c - r) mod 4.
      assign inv_shifted[127 - 8 * i -: 8] = state_1[127 - 8 * ((i % 4) + 4 * (((i / 4) + 4 - (i % 4)) % 4)) -: 8];
      aes_inv_sbox sbox (.in_byte(inv_shifted[127 - 8 * i -: 8]), .out_byte(inv_sub_bytes[127 - 8 * i -: 8]));
    end
  endgenerate

  reg [3:0]   count_2;
  reg         mode_2;
  reg [127:0] key_2;
  reg [31:0]  key_sub_2;
  reg [127:0] sub_2;

  always @(posedge clk) begin
    if (reset) begin
      count_2   <= 4'd0;
      mode_2    <= 1'b0;
      key_2     <= 128'h0;
      key_sub_2 <= 32'h0;
      sub_2     <= 128'h0;
    end else begin
      count_2   <= count_1;
      mode_2    <= mode_1;
      key_2     <= key_1;
      key_sub_2 <= key_sub;
      sub_2     <= mode_1 ? inv_sub_bytes : sub_bytes;
    end
  end

  // Cycle 3: the linear layer and the round key. Decrypting call r undoes the expansion
  // step that made round key 11-r, with Rcon[11-r].
  wire [7:0] rcon;
  aes_rcon rcon_table (.round(mode_2 ? 4'd11 - count_2 : count_2), .rcon(rcon));
  wire last_round = count_2 == 4'd10;

  wire [127:0] enc_state, enc_key;
  aes_enc_linear enc_linear (.sub_bytes(sub_2), .key_in(key_2), .key_sub(key_sub_2), .rcon(rcon),
                             .final_round(last_round), .state_out(enc_state), .key_out(enc_key));

  wire [31:0]  dec_w1 = key_2[95:64] ^ key_2[127:96];
  wire [31:0]  dec_w2 = key_2[63:32] ^ key_2[95:64];
  wire [31:0]  dec_w3 = key_2[31:0] ^ key_2[63:32];
  wire [31:0]  dec_w0 = key_2[127:96] ^ key_sub_2 ^ {rcon, 24'h0};
  wire [127:0] dec_key = {dec_w0, dec_w1, dec_w2, dec_w3};
  wire [127:0] dec_added = sub_2 ^ dec_key;
  wire [127:0] dec_mixed;
  aes_inv_mix_columns inv_mix (.in_state(dec_added), .out_state(dec_mixed));

  always @(posedge clk) begin
    if (reset) begin
      outkey    <= 128'h0;
      state_out <= 128'h0;
    end else begin
      outkey    <= mode_2 ? dec_key : enc_key;
      state_out <= mode_2 ? (last_round ? dec_added : dec_mixed) : enc_state;
    end
  end
endmodule
`default_nettype wire
