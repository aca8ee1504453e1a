package io.jrunc.agent.api.tar;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** pax extended header records: "LENGTH key=value\n", LENGTH counting the whole record in bytes. */
final class PaxRecords {
    private PaxRecords() {
    }

    static byte[] encode(Map<String, String> records) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> r : records.entrySet()) {
            int body = (" " + r.getKey() + "=" + r.getValue() + "\n").getBytes(StandardCharsets.UTF_8).length;
            int length = body + Integer.toString(body).length();
            if (Integer.toString(length).length() != Integer.toString(body).length()) {
                length++; // the length's own digits carried it over a power of ten
            }
            out.append(length).append(' ').append(r.getKey()).append('=').append(r.getValue()).append('\n');
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    static Map<String, String> decode(byte[] data) throws IOException {
        Map<String, String> records = new LinkedHashMap<>();
        int at = 0;
        while (at < data.length) {
            if (data[at] == 0) {
                break; // padding some writers leave
            }
            int space = at;
            while (space < data.length && data[space] != ' ') {
                space++;
            }
            int length;
            try {
                length = Integer.parseInt(new String(data, at, space - at, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                throw new IOException("a pax record with a bad length");
            }
            if (length <= space - at + 1 || at + length > data.length || data[at + length - 1] != '\n') {
                throw new IOException("a pax record with a bad length");
            }
            String record = new String(data, space + 1, at + length - space - 2, StandardCharsets.UTF_8);
            int eq = record.indexOf('=');
            if (eq <= 0) {
                throw new IOException("a pax record without a key");
            }
            records.put(record.substring(0, eq), record.substring(eq + 1));
            at += length;
        }
        return records;
    }

    /*
     * Times in decimal text, by digits rather than BigDecimal: JDK 25's BigDecimal computes 5^65536 in
     * its static initializer, 0.35-0.6 s of a pod's one vCPU under emulation, and nothing else on the
     * agent's paths needs it.
     */

    private static final int NANOS_PER_SECOND = 1_000_000_000;

    /** Seconds and nanoseconds as pax writes a time: "1700000000.123456789", no fraction when whole. */
    static String time(long seconds, int nanos) {
        if (nanos == 0) {
            return Long.toString(seconds);
        }
        // a negative time with a fraction: -2 s + 0.5 s is "-1.5", its whole part one nearer zero
        boolean negative = seconds < 0;
        long whole = negative ? seconds + 1 : seconds;
        int fraction = negative ? NANOS_PER_SECOND - nanos : nanos;
        String digits = Integer.toString(NANOS_PER_SECOND + fraction).substring(1).replaceFirst("0+$", "");
        return (negative && whole == 0 ? "-0" : Long.toString(whole)) + "." + digits;
    }

    /**
     * {seconds, nanoseconds} of a pax time, [-]DIGITS[.[DIGITS]] as Go's archive/tar reads one (negative
     * times round towards minus infinity; digits past the ninth after the point are dropped towards it).
     */
    static long[] parseTime(String value) throws IOException {
        int point = value.indexOf('.');
        String whole = point < 0 ? value : value.substring(0, point);
        String fraction = point < 0 ? "" : value.substring(point + 1);
        boolean negative = whole.startsWith("-");
        String wholeDigits = negative ? whole.substring(1) : whole;
        if (!isDigits(wholeDigits) || (!fraction.isEmpty() && !isDigits(fraction))) {
            throw new IOException("a pax time that does not parse: " + value);
        }
        try {
            long seconds = Long.parseLong(whole);
            String nine = fraction.length() > 9 ? fraction.substring(0, 9) : fraction + "0".repeat(9 - fraction.length());
            int nanos = Integer.parseInt(nine);
            boolean beyond = fraction.length() > 9 && !isZeros(fraction.substring(9));
            if (!negative || (nanos == 0 && !beyond)) {
                return new long[] {seconds, nanos};
            }
            // -1.5: floor -2, and 0.5 s above it; the dropped digits count against the nanoseconds
            return new long[] {Math.subtractExact(seconds, 1), NANOS_PER_SECOND - nanos - (beyond ? 1 : 0)};
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IOException("a pax time that does not parse: " + value);
        }
    }

    private static boolean isDigits(String s) {
        return !s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static boolean isZeros(String s) {
        return s.chars().allMatch(c -> c == '0');
    }
}
