import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, PR_SPEC_DISABLE = 53, 0, 4
if libc.prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, PR_SPEC_DISABLE, 0, 0) != 0:
    sys.exit("prctl failed %d" % ctypes.get_errno())
os.execv(sys.argv[1], sys.argv[1:])
