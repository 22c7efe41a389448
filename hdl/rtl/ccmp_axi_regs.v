// AXI4-Lite register file of ccmp_axi (register map in hdl/README.md). The TK is
// write-only: its registers read as 0 (a secret never leaves the core through the bus).
// Writes and reads to an address not in the map, and writes to a read-only register,
// answer SLVERR. Multi-word values change at once: TK when KEY3 is written (KEY0..2 wait
// in a shadow), PN when PN_HI is written (with the PN_LO written before it); reading
// PN_LO latches the PN's high half for the next PN_HI read. The PN is the next frame's:
// it steps when a frame starts, and after PN 2^48-1 has been used no frame starts
// (PN_EXHAUSTED) until a new PN is written, so no PN is ever used twice under one TK.
`default_nettype none
module ccmp_axi_regs (
    input  wire         clk,
    input  wire         reset,
    // AXI4-Lite slave (byte addresses; the two low bits are ignored)
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [5:0]   s_axil_awaddr,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire         s_axil_awvalid,
    output wire         s_axil_awready,
    input  wire [31:0]  s_axil_wdata,
    input  wire [3:0]   s_axil_wstrb,
    input  wire         s_axil_wvalid,
    output wire         s_axil_wready,
    output reg  [1:0]   s_axil_bresp,
    output reg          s_axil_bvalid,
    input  wire         s_axil_bready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [5:0]   s_axil_araddr,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire         s_axil_arvalid,
    output wire         s_axil_arready,
    output reg  [31:0]  s_axil_rdata,
    output reg  [1:0]   s_axil_rresp,
    output reg          s_axil_rvalid,
    input  wire         s_axil_rready,
    // To and from the datapath
    output wire         enable,
    output wire         ht_control,
    output wire [1:0]   keyid,
    output wire [127:0] tk,            // octet 0 on top
    output reg  [47:0]  pn,
    output reg          pn_exhausted,
    input  wire         pn_take,       // a frame starts with `pn`
    input  wire         busy,
    input  wire         frame_out,     // a protected frame left
    input  wire         frame_dropped  // an input frame was dropped
);
  localparam [3:0] CTRL = 4'h0, STATUS = 4'h1, FRAMES_OUT = 4'h2, FRAMES_DROPPED = 4'h3,
                   KEY0 = 4'h4, KEY1 = 4'h5, KEY2 = 4'h6, KEY3 = 4'h7, PN_LO = 4'h8, PN_HI = 4'h9;
  localparam [1:0] OKAY = 2'b00, SLVERR = 2'b10;

  reg  [3:0]   ctrl;          // [0] enable, [1] 802.11n HT Control rules, [3:2] Key ID
  // TK as the bus writes it: word k (KEY k) holds octets 4k..4k+3, octet 4k in bits 7:0.
  reg  [127:0] tk_words;
  reg  [95:0]  tk_shadow;     // KEY0..KEY2 as written, loaded with KEY3
  reg  [31:0]  pn_lo_shadow;  // PN_LO as written, loaded with PN_HI
  reg  [15:0]  pn_hi_read;    // PN's high half when PN_LO was last read
  reg  [31:0]  frames_out, frames_dropped;
  assign enable     = ctrl[0];
  assign ht_control = ctrl[1];
  assign keyid      = ctrl[3:2];
  genvar o;
  generate
    for (o = 0; o < 16; o = o + 1) begin : g_tk_octet
      assign tk[127 - 8 * o -: 8] = tk_words[8 * o +: 8];
    end
  endgenerate

  // ---- write channel: address and data taken independently, answered together ----
  reg         aw_full, w_full;
  reg  [3:0]  aw_word;
  reg  [31:0] w_data;
  reg  [3:0]  w_strb;
  assign s_axil_awready = !aw_full;
  assign s_axil_wready  = !w_full;
  wire do_write = aw_full && w_full && !s_axil_bvalid;
  wire writable = (aw_word == CTRL) || (aw_word >= KEY0 && aw_word <= PN_HI);

  function [31:0] merge(input [31:0] old, input [31:0] data, input [3:0] strb);
    integer b;
    begin
      for (b = 0; b < 4; b = b + 1) merge[8 * b +: 8] = strb[b] ? data[8 * b +: 8] : old[8 * b +: 8];
    end
  endfunction
  /* verilator lint_off UNUSEDSIGNAL */  // the bits beyond the register
  wire [31:0] ctrl_written = merge({28'h0, ctrl}, w_data, w_strb);
  wire [31:0] pn_hi_written = merge({16'h0, pn[47:32]}, w_data, w_strb);
  /* verilator lint_on UNUSEDSIGNAL */

  // ---- read channel ----
  assign s_axil_arready = !s_axil_rvalid;
  wire [3:0] ar_word = s_axil_araddr[5:2];
  reg  [31:0] read_data;
  reg         readable;
  always @(*) begin
    readable  = 1'b1;
    read_data = 32'h0;
    case (ar_word)
      CTRL:           read_data = {28'h0, ctrl};
      STATUS:         read_data = {30'h0, pn_exhausted, busy};
      FRAMES_OUT:     read_data = frames_out;
      FRAMES_DROPPED: read_data = frames_dropped;
      KEY0, KEY1, KEY2, KEY3: read_data = 32'h0;  // TK: write-only
      PN_LO:          read_data = pn[31:0];
      PN_HI:          read_data = {16'h0, pn_hi_read};
      default:        readable = 1'b0;
    endcase
  end

  always @(posedge clk) begin
    if (reset) begin
      ctrl           <= 4'b0010;
      tk_words       <= 128'h0;
      tk_shadow      <= 96'h0;
      pn             <= 48'h1;
      pn_lo_shadow   <= 32'h0;
      pn_hi_read     <= 16'h0;
      pn_exhausted   <= 1'b0;
      frames_out     <= 32'h0;
      frames_dropped <= 32'h0;
      aw_full        <= 1'b0;
      aw_word        <= 4'h0;
      w_full         <= 1'b0;
      w_data         <= 32'h0;
      w_strb         <= 4'h0;
      s_axil_bvalid  <= 1'b0;
      s_axil_bresp   <= OKAY;
      s_axil_rvalid  <= 1'b0;
      s_axil_rresp   <= OKAY;
      s_axil_rdata   <= 32'h0;
    end else begin
      if (frame_out) frames_out <= frames_out + 32'd1;
      if (frame_dropped) frames_dropped <= frames_dropped + 32'd1;
      if (pn_take) begin
        pn <= pn + 48'd1;
        if (&pn) pn_exhausted <= 1'b1;
      end

      if (s_axil_awvalid && s_axil_awready) begin
        aw_full <= 1'b1;
        aw_word <= s_axil_awaddr[5:2];
      end
      if (s_axil_wvalid && s_axil_wready) begin
        w_full <= 1'b1;
        w_data <= s_axil_wdata;
        w_strb <= s_axil_wstrb;
      end
      if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 1'b0;
      if (do_write) begin
        aw_full       <= 1'b0;
        w_full        <= 1'b0;
        s_axil_bvalid <= 1'b1;
        s_axil_bresp  <= writable ? OKAY : SLVERR;
        case (aw_word)
          CTRL: ctrl <= ctrl_written[3:0];
          KEY0: tk_shadow[31:0]  <= merge(tk_shadow[31:0], w_data, w_strb);
          KEY1: tk_shadow[63:32] <= merge(tk_shadow[63:32], w_data, w_strb);
          KEY2: tk_shadow[95:64] <= merge(tk_shadow[95:64], w_data, w_strb);
          KEY3: tk_words <= {merge(tk_words[127:96], w_data, w_strb), tk_shadow};
          PN_LO: pn_lo_shadow <= merge(pn_lo_shadow, w_data, w_strb);
          PN_HI: begin  // a new PN also ends PN exhaustion (and wins over a frame's step)
            pn           <= {pn_hi_written[15:0], pn_lo_shadow};
            pn_exhausted <= 1'b0;
          end
          default: ;
        endcase
      end

      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 1'b0;
      if (s_axil_arvalid && s_axil_arready) begin
        s_axil_rvalid <= 1'b1;
        s_axil_rdata  <= read_data;
        s_axil_rresp  <= readable ? OKAY : SLVERR;
        if (ar_word == PN_LO) pn_hi_read <= pn[47:32];
      end
    end
  end
endmodule
`default_nettype wire
