// One clock cycle of a verilated AXI peripheral (ccmp_axi or ccmp_decap_axi: the same
// ports, decapsulation adds m_axis_tuser) for the Rust driver (src/model.rs): the inputs
// applied with the clock low, the outputs read then (what the edge will sample), the
// rising edge evaluated.
#include <cstdint>
#include <memory>

#include "verilated.h"
#include "Vccmp_axi.h"
#include "Vccmp_axi_mutant.h"
#include "Vccmp_decap_axi.h"

extern "C" {
// Mirrors `Inputs` and `Outputs` in src/model.rs (repr(C)).
struct Inputs {
    uint32_t s_axis_tdata[4];
    uint32_t wdata;
    uint16_t s_axis_tkeep;
    uint8_t aresetn, awvalid, awaddr, wvalid, wstrb, bready, arvalid, araddr, rready;
    uint8_t s_axis_tvalid, s_axis_tlast, m_axis_tready;
};
struct Outputs {
    uint32_t m_axis_tdata[4];
    uint32_t rdata;
    uint16_t m_axis_tkeep;
    uint8_t awready, wready, bresp, bvalid, arready, rresp, rvalid;
    uint8_t s_axis_tready, m_axis_tvalid, m_axis_tlast, m_axis_tuser;
};
}

namespace {
struct Model {
    virtual ~Model() = default;
    virtual void cycle(const Inputs& in, Outputs& out) = 0;
};

template <class V> void apply(V& v, const Inputs& in) {
    for (int w = 0; w < 4; w++) v.s_axis_tdata[w] = in.s_axis_tdata[w];
    v.s_axil_wdata = in.wdata;
    v.s_axis_tkeep = in.s_axis_tkeep;
    v.aresetn = in.aresetn;
    v.s_axil_awvalid = in.awvalid;
    v.s_axil_awaddr = in.awaddr;
    v.s_axil_wvalid = in.wvalid;
    v.s_axil_wstrb = in.wstrb;
    v.s_axil_bready = in.bready;
    v.s_axil_arvalid = in.arvalid;
    v.s_axil_araddr = in.araddr;
    v.s_axil_rready = in.rready;
    v.s_axis_tvalid = in.s_axis_tvalid;
    v.s_axis_tlast = in.s_axis_tlast;
    v.m_axis_tready = in.m_axis_tready;
}

template <class V> void read(const V& v, Outputs& out) {
    for (int w = 0; w < 4; w++) out.m_axis_tdata[w] = v.m_axis_tdata[w];
    out.rdata = v.s_axil_rdata;
    out.m_axis_tkeep = v.m_axis_tkeep;
    out.awready = v.s_axil_awready;
    out.wready = v.s_axil_wready;
    out.bresp = v.s_axil_bresp;
    out.bvalid = v.s_axil_bvalid;
    out.arready = v.s_axil_arready;
    out.rresp = v.s_axil_rresp;
    out.rvalid = v.s_axil_rvalid;
    out.s_axis_tready = v.s_axis_tready;
    out.m_axis_tvalid = v.m_axis_tvalid;
    out.m_axis_tlast = v.m_axis_tlast;
}

template <class V, bool TUSER> struct Top final : Model {
    std::unique_ptr<VerilatedContext> context{new VerilatedContext};
    std::unique_ptr<V> v{new V{context.get()}};
    void cycle(const Inputs& in, Outputs& out) override {
        apply(*v, in);
        v->aclk = 0;
        v->eval();
        read(*v, out);
        if constexpr (TUSER) out.m_axis_tuser = v->m_axis_tuser;
        else out.m_axis_tuser = 0;
        v->aclk = 1;
        v->eval();
    }
};
}  // namespace

extern "C" {
// 0: ccmp_axi, 1: ccmp_decap_axi, 2: ccmp_axi with build.rs's one-bit mutation.
void* wlansec_rtl_new(int which) {
    switch (which) {
        case 0: return static_cast<Model*>(new Top<Vccmp_axi, false>);
        case 1: return static_cast<Model*>(new Top<Vccmp_decap_axi, true>);
        case 2: return static_cast<Model*>(new Top<Vccmp_axi_mutant, false>);
        default: return nullptr;
    }
}

void wlansec_rtl_free(void* model) { delete static_cast<Model*>(model); }

void wlansec_rtl_cycle(void* model, const Inputs* in, Outputs* out) {
    static_cast<Model*>(model)->cycle(*in, *out);
}
}
