"""Writes a module whose one initializer line is longer than 500,000 characters."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 130000
values = ", ".join(str((i * 37) % 256) for i in range(n))
print(".version 9.0\n.target sm_90\n.address_size 64\n")
print(".global .align 1 .b8 big[%d] = {%s};" % (n, values))
print("""
.visible .entry k(.param .u64 k_param_0)
{
	.reg .b16 	%rs<2>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.u8 	%rs1, [big+129999];
	st.global.u8 	[%rd2], %rs1;
	ret;
}""")
