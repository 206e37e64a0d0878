package io.flowtrace.agent.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * The few libc calls the agents need (ctnetlink sockets, network namespaces, signals to tcpdump);
 * JNA so the agent ships no JNI code of its own.
 */
public interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int AF_NETLINK = 16;
    int SOCK_RAW = 3;
    int SOCK_CLOEXEC = 0x80000;
    /** NETLINK_NETFILTER (include/uapi/linux/netlink.h). */
    int NETLINK_NETFILTER = 12;

    int SOL_SOCKET = 1;
    int SO_RCVBUF = 8;
    int SO_RCVTIMEO = 20;
    int SO_RCVBUFFORCE = 33;
    int EINTR = 4;
    int EAGAIN = 11;
    int EPERM = 1;
    int ENOBUFS = 105;
    int CLONE_NEWNET = 0x40000000;
    int O_RDONLY = 0;
    int O_CLOEXEC = 0x80000;
    /** SIGUSR1 on Linux (x86, arm): tcpdump prints its statistics and keeps capturing. */
    int SIGUSR1 = 10;

    int open(String path, int flags) throws LastErrorException;

    int socket(int domain, int type, int protocol) throws LastErrorException;

    int bind(int fd, byte[] addr, int addrlen) throws LastErrorException;

    int setsockopt(int fd, int level, int name, byte[] value, int len) throws LastErrorException;

    int getsockopt(int fd, int level, int name, byte[] value, int[] len) throws LastErrorException;

    long recv(int fd, byte[] buf, long len, int flags) throws LastErrorException;

    int close(int fd) throws LastErrorException;

    int setns(int fd, int nstype) throws LastErrorException;

    int kill(int pid, int sig) throws LastErrorException;
}
