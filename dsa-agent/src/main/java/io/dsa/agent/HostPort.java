package io.dsa.agent;

/**
 * A {@code host:port} address.
 *
 * @param host a host name or IPv4 address ({@code [v6]} in brackets)
 * @param port in {@code [1, 65535]}
 */
public record HostPort(String host, int port) {
    /**
     * @throws IllegalArgumentException for text that is not {@code host:port} with a valid port
     */
    public static HostPort parse(String text) {
        if (text == null) throw new IllegalArgumentException("address is null, expected host:port");
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("address '" + text + "' is not host:port");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        if (host.isEmpty()) throw new IllegalArgumentException("address '" + text + "' has an empty host, expected host:port");
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port '" + text.substring(colon + 1) + "' in '" + text + "' is not a number");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " in '" + text + "' out of range [1, 65535]");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() { return (host.contains(":") ? "[" + host + "]" : host) + ":" + port; }
}
