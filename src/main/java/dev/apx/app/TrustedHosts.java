package dev.apx.app;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code --forwarded-allow-ips} as Uvicorn reads it: {@code *} alone trusts everyone; otherwise a
 * comma-separated list of IP addresses (compared as addresses, so {@code ::1} matches
 * {@code 0:0:0:0:0:0:0:1}), networks in CIDR notation, and literals for anything else (a Unix socket
 * name). No name is ever looked up in DNS. Immutable, thread-safe.
 */
public final class TrustedHosts {
    private final boolean everyone;
    private final Set<InetAddress> addresses = new HashSet<>();
    private final List<Network> networks;
    private final Set<String> literals = new HashSet<>();

    private record Network(byte[] prefix, int bits) {
        boolean contains(InetAddress address) {
            byte[] bytes = address.getAddress();
            if (bytes.length != prefix.length) {
                return false;
            }
            for (int i = 0; i < bits; i++) {
                int mask = 0x80 >> (i % 8);
                if ((bytes[i / 8] & mask) != (prefix[i / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }

    private TrustedHosts(List<String> entries) {
        everyone = entries.equals(List.of("*"));
        List<Network> parsedNetworks = new java.util.ArrayList<>();
        for (String entry : entries) {
            int slash = entry.indexOf('/');
            InetAddress address = literal(slash < 0 ? entry : entry.substring(0, slash));
            if (address == null) {
                literals.add(entry);
            } else if (slash < 0) {
                addresses.add(address);
            } else {
                Integer bits = prefixLength(entry.substring(slash + 1), address.getAddress().length * 8);
                if (bits == null) {
                    literals.add(entry);
                } else {
                    parsedNetworks.add(new Network(address.getAddress(), bits));
                }
            }
        }
        networks = List.copyOf(parsedNetworks);
    }

    /** Parses a comma-separated list, e.g. {@code "127.0.0.1, ::1, 10.0.0.0/8"}. */
    public static TrustedHosts parse(String commaSeparated) {
        return new TrustedHosts(Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList());
    }

    /** True for a trusted host (an address as text, or a literal); false for null or empty. */
    public boolean contains(String host) {
        if (everyone) {
            return true;
        }
        if (host == null || host.isEmpty()) {
            return false;
        }
        InetAddress address = literal(host);
        return address == null ? literals.contains(host) : contains(address);
    }

    /** True for a trusted peer address. */
    public boolean contains(InetAddress address) {
        return everyone || addresses.contains(address) || networks.stream().anyMatch(n -> n.contains(address));
    }

    boolean everyone() {
        return everyone;
    }

    /** An IP address literal, or null: never a DNS lookup. */
    private static InetAddress literal(String text) {
        try {
            return InetAddress.ofLiteral(text);
        } catch (IllegalArgumentException notAnAddress) {
            return null;
        }
    }

    private static Integer prefixLength(String text, int max) {
        try {
            int bits = Integer.parseInt(text);
            return bits >= 0 && bits <= max ? bits : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
