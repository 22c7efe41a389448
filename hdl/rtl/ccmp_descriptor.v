// What CCMP takes from a frame descriptor (IEEE 802.11-2016 12.5.3.3): the nonce, the two
// AAD blocks (l(a) || AAD, zero padded) and the 8-octet CCMP header to transmit.
// AAD: FC with subtype (data), Retry, PwrMgt and MoreData masked and Protected set, Order
// masked for QoS frames when ht_control (802.11n rules), A1-A3, SC with the sequence number
// masked, A4 (ToDS and FromDS data), QC with only the TID. Nonce flags: priority = TID for
// QoS data, 0x10 for management frames.
`default_nettype none
module ccmp_descriptor (
    /* verilator lint_off UNUSEDSIGNAL */  // Duration, SN and QC octet 1 are not authenticated
    input  wire [255:0] header,       // first 32 header octets, octet 0 in [255:248]
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire         ht_control,   // Rules.ht_control: 802.11n and later
    input  wire [47:0]  pn,
    input  wire [1:0]   keyid,
    output wire [103:0] nonce,
    output wire [255:0] aad,          // AAD block 1 on top
    output wire [63:0]  ccmp_header
);
  wire [7:0] fc0 = header[255:248];
  wire [7:0] fc1 = header[247:240];
  wire       is_mgmt = (fc0[3:2] == 2'b00);
  wire       is_data = (fc0[3:2] == 2'b10);
  wire       has_qos = is_data && fc0[7];
  wire       has_a4  = is_data && fc1[0] && fc1[1];
  /* verilator lint_off UNUSEDSIGNAL */  // QC: only the TID
  wire [7:0] qc0     = has_a4 ? header[255 - 8 * 30 -: 8] : header[255 - 8 * 24 -: 8];
  /* verilator lint_on UNUSEDSIGNAL */
  wire [3:0] tid     = qc0[3:0];

  wire [7:0] fc0_masked = is_data ? (fc0 & 8'h8f) : fc0;
  wire [7:0] fc1_masked = ((fc1 & 8'hc7) | 8'h40) & ((has_qos && ht_control) ? 8'h7f : 8'hff);
  // FC, A1..A3 (octets 4..21), SC with only the fragment number.
  wire [175:0] aad_base = {fc0_masked, fc1_masked, header[255 - 8 * 4 -: 144],
                           header[255 - 8 * 22 -: 8] & 8'h0f, 8'h00};
  wire [47:0]  a4 = header[255 - 8 * 24 -: 48];
  wire [63:0]  aad_tail = has_a4 ? (has_qos ? {a4, 4'h0, tid, 8'h00} : {a4, 16'h0})
                                 : (has_qos ? {4'h0, tid, 56'h0} : 64'h0);
  wire [15:0]  aad_len = 16'd22 + (has_a4 ? 16'd6 : 16'd0) + (has_qos ? 16'd2 : 16'd0);
  assign aad = {aad_len, aad_base, aad_tail};

  wire [7:0] nonce_flags = {3'b000, is_mgmt, has_qos ? tid : 4'h0};
  assign nonce       = {nonce_flags, header[255 - 8 * 10 -: 48], pn};
  assign ccmp_header = {pn[7:0], pn[15:8], 8'h00, keyid, 6'b100000,
                        pn[23:16], pn[31:24], pn[39:32], pn[47:40]};
endmodule
`default_nettype wire
