# Calls each syscall the seccomp filter refuses and prints {probe: errno} as JSON (0: it
# succeeded). Arguments are chosen so that the kernel itself answers something other than EPERM
# (EINVAL, EFAULT, EBADF, success) where no filter stands in the way: an EPERM then can only be
# the filter's. Run by seccomp.test.ts inside and outside sandboxes.
import ctypes
import json
import os
import socket

import seccomp

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def nr(name):
    return seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)


def call(name, *args):
    ctypes.set_errno(0)
    result = libc.syscall(nr(name), *[ctypes.c_long(a) for a in args])
    return ctypes.get_errno() if result == -1 else 0


def make_socket(family, kind, protocol):
    try:
        socket.socket(family, kind, protocol).close()
        return 0
    except OSError as error:
        return error.errno


def clone_new_user():
    # A fork into a new user namespace; the child leaves at once.
    CLONE_NEWUSER, SIGCHLD = 0x10000000, 17
    pid = call_raw("clone", CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
        return 0
    return ctypes.get_errno()


def call_raw(name, *args):
    ctypes.set_errno(0)
    return libc.syscall(nr(name), *[ctypes.c_long(a) for a in args])


def getaddrinfo_localhost():
    try:
        socket.getaddrinfo("localhost", 80, flags=socket.AI_ADDRCONFIG)
        return 0
    except socket.gaierror as error:
        return -error.errno


AF_PACKET, AF_VSOCK, AF_NETLINK = 17, 40, 16
NETLINK_ROUTE, NETLINK_SOCK_DIAG = 0, 4
BAD_SOCKET_TYPE = 12  # past SOCK_MAX: the kernel answers EINVAL before any permission check

results = {
    "io_uring_setup": call("io_uring_setup", 0, 0),
    "keyctl": call("keyctl", 9999, 0, 0, 0, 0),
    "add_key": call("add_key", 0, 0, 0, 0, 0),
    "request_key": call("request_key", 0, 0, 0, 0),
    "bpf": call("bpf", 9999, 0, 0),
    "userfaultfd": call("userfaultfd", 0x1 | 0x4),  # UFFD_USER_MODE_ONLY and an unknown flag
    "perf_event_open": call("perf_event_open", 0, 0, -1, -1, -1),
    "mount": call("mount", 0, 0, 0, 0, 0),
    "umount2": call("umount2", 0, -1),
    "unshare": call("unshare", 0),
    "setns": call("setns", -1, 0),
    "clone3": call("clone3", 0, 0),
    "clone_newuser": clone_new_user(),
    "personality_no_randomize": call("personality", 0x0040000),
    "packet_socket_bad_type": make_socket(AF_PACKET, BAD_SOCKET_TYPE, 0),
    "vsock_socket": make_socket(AF_VSOCK, socket.SOCK_STREAM, 0),
    "netlink_sock_diag": make_socket(AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG),
    # What a program on the network needs, and must keep working under the filter.
    "personality_linux": call("personality", 0),
    "tcp_socket": make_socket(socket.AF_INET, socket.SOCK_STREAM, 0),
    "udp6_socket": make_socket(socket.AF_INET6, socket.SOCK_DGRAM, 0),
    "unix_socket": make_socket(socket.AF_UNIX, socket.SOCK_STREAM, 0),
    "netlink_route": make_socket(AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE),
    "getaddrinfo": getaddrinfo_localhost(),
    # Raw and packet sockets as tcpdump and ping open them: the kernel itself wants CAP_NET_RAW
    # (EPERM in any sandbox), so only root outside one shows them working.
    "packet_socket": make_socket(AF_PACKET, socket.SOCK_RAW, 0),
    "raw_socket": make_socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
}
print(json.dumps(results))
