package io.flowtrace.cli.capture;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import java.util.HashMap;
import java.util.Map;

/**
 * A tcpdump filter expression ({@code -f}), compiled and run by libpcap itself through JNA, so the
 * syntax and the meaning are tcpdump's and tshark's: {@code pcap_compile} once per link type of the
 * capture (a pcapng file may mix them), {@code pcap_offline_filter} per record. Used by the reader
 * thread only. JNA's direct mapping keeps the per-record call to two small copies into native
 * memory and one native call, with no allocation.
 */
public final class BpfFilter implements CaptureRecordFilter, AutoCloseable {
    /** pcap.h: the netmask to pass when it is not known (only "ip broadcast" needs it). */
    private static final int PCAP_NETMASK_UNKNOWN = 0xffffffff;

    private static final int SNAPLEN = 262_144;
    /** struct bpf_program { u_int bf_len; struct bpf_insn *bf_insns; } on LP64. */
    private static final int BPF_PROGRAM_SIZE = 16;
    /** struct pcap_pkthdr { struct timeval ts; bpf_u_int32 caplen; bpf_u_int32 len; } on LP64. */
    private static final int PKTHDR_SIZE = 24;

    private static final int PKTHDR_CAPLEN = 16;
    private static final int PKTHDR_LEN = 20;

    /** libpcap is absent, or the expression does not compile: the one line to print. */
    public static final class FilterException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        FilterException(String message) {
            super(message);
        }
    }

    /** The libpcap functions used (pcap(3PCAP)), bound once by JNA's direct mapping. */
    private static final class Pcap {
        static final String LOAD_ERROR = register();

        private static String register() {
            // Debian's libpcap0.8 (pulled in by tcpdump) ships libpcap.so.0.8 only; libpcap.so comes with -dev.
            // -Dflowtrace.libpcap=PATH names another one (a libpcap of one's own build).
            String chosen = System.getProperty("flowtrace.libpcap");
            String[] names =
                    chosen != null ? new String[] {chosen} : new String[] {"pcap", "libpcap.so.0.8", "libpcap.so.1"};
            String last = null;
            for (String name : names) {
                try {
                    Native.register(Pcap.class, NativeLibrary.getInstance(name));
                    return null;
                } catch (UnsatisfiedLinkError | IllegalArgumentException e) {
                    // JNA lists every path it tried on the following lines: the first says it
                    last = String.valueOf(e.getMessage())
                            .lines()
                            .findFirst()
                            .orElse("")
                            .replaceFirst(":$", "");
                }
            }
            return last;
        }

        static native Pointer pcap_open_dead(int linktype, int snaplen);

        static native int pcap_compile(Pointer pcap, Pointer program, String expression, int optimize, int netmask);

        static native String pcap_geterr(Pointer pcap);

        static native int pcap_offline_filter(Pointer program, Pointer header, Pointer packet);

        static native void pcap_freecode(Pointer program);

        static native void pcap_close(Pointer pcap);
    }

    private final String expression;
    private final Map<Integer, Memory> programs = new HashMap<>();
    private final Memory header = new Memory(PKTHDR_SIZE);
    private Memory packet = new Memory(2048);
    private int lastLinkType = -1;
    private Memory lastProgram;

    private BpfFilter(String expression) {
        this.expression = expression;
        header.clear();
    }

    /**
     * Checks that libpcap is there and that {@code expression} compiles (for Ethernet, the link type
     * of nearly every capture); each capture's own link types are compiled when they are met.
     *
     * @throws FilterException with the one line to print
     */
    public static BpfFilter compile(String expression) {
        if (Pcap.LOAD_ERROR != null) {
            throw new FilterException("-f needs libpcap, which could not be loaded (" + Pcap.LOAD_ERROR
                    + "); install it (Debian: apt-get install libpcap0.8, which tcpdump pulls in), or filter with"
                    + " tcpdump -r FILE -w - 'EXPR' | flowtrace analyze -");
        }
        BpfFilter filter = new BpfFilter(expression);
        filter.program(1);
        return filter;
    }

    String expression() {
        return expression;
    }

    @Override
    public boolean accept(CaptureRecord r) {
        Memory program = r.linkType == lastLinkType ? lastProgram : program(r.linkType);
        if (packet.size() < r.capturedLength) {
            long size = Math.max(r.capturedLength, packet.size() * 2);
            packet.close();
            packet = new Memory(size);
        }
        packet.write(0, r.data, r.dataOffset, r.capturedLength);
        header.setInt(PKTHDR_CAPLEN, r.capturedLength);
        header.setInt(PKTHDR_LEN, r.wireLength);
        return Pcap.pcap_offline_filter(program, header, packet) != 0;
    }

    /** The program for one link type, compiled on first use. */
    private Memory program(int linkType) {
        Memory program = programs.get(linkType);
        if (program == null) {
            Pointer pcap = Pcap.pcap_open_dead(dlt(linkType), SNAPLEN);
            if (pcap == null) {
                throw new FilterException("-f: libpcap cannot open link type " + linkType);
            }
            try {
                program = new Memory(BPF_PROGRAM_SIZE);
                program.clear();
                if (Pcap.pcap_compile(pcap, program, expression, 1, PCAP_NETMASK_UNKNOWN) != 0) {
                    throw new FilterException("-f '" + expression + "': " + Pcap.pcap_geterr(pcap)
                            + (linkType == 1 ? "" : " (link type " + linkType + ")"));
                }
            } finally {
                Pcap.pcap_close(pcap);
            }
            programs.put(linkType, program);
        }
        lastLinkType = linkType;
        lastProgram = program;
        return program;
    }

    /**
     * The DLT_ value libpcap compiles for, of a file's LINKTYPE_ value: equal except for the few
     * LINKTYPE_ numbers below 104 that were assigned to stand for platform-dependent DLT_ values
     * (linktype_to_dlt() in libpcap's pcap-common.c; the Linux values).
     */
    static int dlt(int linkType) {
        return switch (linkType) {
            case 100 -> 11; // LINKTYPE_ATM_RFC1483 -> DLT_ATM_RFC1483
            case 101 -> 12; // LINKTYPE_RAW -> DLT_RAW
            case 102 -> 15; // LINKTYPE_SLIP_BSDOS -> DLT_SLIP_BSDOS
            case 103 -> 16; // LINKTYPE_PPP_BSDOS -> DLT_PPP_BSDOS
            default -> linkType;
        };
    }

    @Override
    public void close() {
        programs.values().forEach(Pcap::pcap_freecode);
        programs.clear();
        lastProgram = null;
        lastLinkType = -1;
    }
}
