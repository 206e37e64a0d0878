package io.flowtrace.cli.output;

/**
 * Whether a report says which capture interface each row is from: when its flows came from more than
 * one interface (a pcapng of several), the default table ({@link ConnectionTable}) and
 * {@code --services} ({@link ServiceTableWriter}) get an {@code interface} column, and the services'
 * JSON an {@code "interface"} field; from one interface they are as they always were. The one rule for
 * both reports: each tells it the interface of everything it covers (the table every flow of the
 * capture, shown or filtered out; the services every row).
 */
public final class InterfaceColumn {
    private String first;
    private boolean shown;

    /** Told the capture interface (the vantage's interface name) of one flow or row. */
    public void seen(String iface) {
        if (first == null) {
            first = iface;
        } else if (!shown && !first.equals(iface)) {
            shown = true;
        }
    }

    /** True when more than one interface was seen: the rows say which one each is from. */
    public boolean shown() {
        return shown;
    }
}
