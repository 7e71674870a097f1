/* mathlib_erf_table.h -- written by bench/mathlib_erf_fit.py 7; do not edit */
#define ET_NC 7
#define ET_NI 8
#define ET_SCALE 1.9f
#define ET_BIAS 0.09f
static const float et_m[8] = {0x0p+0f, 0x1.504398p-1f, 0x1.56d03ep+0f, 0x1.df3dcp+0f, 0x1.1d6edp+1f, 0x1.7159eap+1f, 0x1.b0e432p+1f, 0x1.ea8f96p+1f};
static const float et_k[8] = {0x0p+0f, 0x1.4b4502p-1f, 0x1.e22cc2p-1f, 0x1.fbd904p-1f, 0x1.ff2ca2p-1f, 0x1.fffa1ep-1f, 0x1.ffffc6p-1f, 0x1.fffffep-1f};
static const float et_c[ET_NC][8] = { /* highest degree first */
    {-0x1.34f3b2p-6f, 0x1.22f676p-6f, 0x1.7589e2p-9f, -0x1.6ff9b4p-8f, -0x1.f0bdd8p-13f, 0x1.231a7ap-11f, 0x1.beaccep-14f, 0x1.83f902p-17f},
    {-0x1.bc25c2p-8f, -0x1.38a00ep-5f, 0x1.6e65e2p-6f, 0x1.13f502p-8f, -0x1.75ee84p-9f, -0x1.2410cep-10f, -0x1.37ae8ap-13f, -0x1.97c4c4p-17f},
    {0x1.d7fd4ap-4f, -0x1.1f8836p-5f, -0x1.23b83ep-5f, 0x1.76841p-7f, 0x1.678f44p-7f, 0x1.ad8fc8p-10f, 0x1.499b88p-13f, 0x1.69e286p-17f},
    {-0x1.a9fa12p-12f, 0x1.5f4094p-3f, -0x1.92e5ccp-6f, -0x1.5b8ecap-5f, -0x1.4a631ep-6f, -0x1.d5fbb4p-10f, -0x1.1d38cep-13f, -0x1.0a4e2cp-17f},
    {-0x1.811f2ep-2f, -0x1.12db2p-5f, 0x1.4b9526p-3f, 0x1.164ac4p-4f, 0x1.7dbbeap-6f, 0x1.7591f2p-10f, 0x1.74230cp-14f, 0x1.2b5862p-18f},
    {-0x1.9599a2p-21f, -0x1.ecfcfcp-2f, -0x1.0180e4p-2f, -0x1.0418fcp-4f, -0x1.1d7acep-6f, -0x1.9d2c18p-11f, -0x1.592a62p-15f, -0x1.e516e2p-20f},
    {0x1.06eba8p-3f, 0x1.7750a4p-1f, 0x1.809678p-3f, 0x1.15e066p-5f, 0x1.000a8ep-7f, 0x1.1e5eecp-12f, 0x1.9834dep-17f, 0x1.fa46e4p-22f},
};
