package io.jrunc.vminit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The first page of a swap area, version 1, as the kernel reads it (include/linux/swap.h, union
 * swap_header): a zeroed page with version (u32) at byte 1024, last_page (u32) at 1028, nr_badpages
 * (u32, 0) at 1032, the UUID at 1036, the label at 1052, and "SWAPSPACE2" in its last 10 bytes. The
 * agent writes it itself (no mkswap in the guest: no helper binaries). Little-endian: the kernel takes
 * a byte-swapped header only to refuse it on a machine of the other order, and the guests are x86-64
 * or aarch64.
 */
final class SwapHeader {
    private SwapHeader() {}

    static final int VERSION_OFFSET = 1024;
    static final int LAST_PAGE_OFFSET = 1028;
    static final int NR_BADPAGES_OFFSET = 1032;
    static final int UUID_OFFSET = 1036;
    static final int LABEL_OFFSET = 1052;
    static final int LABEL_BYTES = 16;
    static final byte[] SIGNATURE = "SWAPSPACE2".getBytes(StandardCharsets.US_ASCII);
    /** last_page is a u32: an area of more pages cannot be described. */
    static final long MAX_PAGES = 0xFFFF_FFFFL;

    /**
     * The header page of an area of {@code pages} pages of {@code pageSize} bytes.
     *
     * @throws IllegalArgumentException for fewer than 2 pages (the header takes one, and the kernel wants
     *     at least one more), more than {@link #MAX_PAGES}, a page too small for the fields, or a label
     *     over 16 bytes of UTF-8
     */
    static byte[] page(long pages, int pageSize, UUID uuid, String label) {
        if (pages < 2) {
            throw new IllegalArgumentException("a swap area needs at least 2 pages of " + pageSize + " bytes; this one has " + pages);
        }
        if (pages > MAX_PAGES) {
            throw new IllegalArgumentException("a swap area has at most " + MAX_PAGES + " pages (last_page is a u32); this one has " + pages);
        }
        if (pageSize < LABEL_OFFSET + LABEL_BYTES + SIGNATURE.length) {
            throw new IllegalArgumentException("page size " + pageSize + " is too small for a swap header");
        }
        byte[] labelBytes = label.getBytes(StandardCharsets.UTF_8);
        if (labelBytes.length > LABEL_BYTES) {
            throw new IllegalArgumentException("swap label \"" + label + "\" is over " + LABEL_BYTES + " bytes");
        }
        ByteBuffer page = ByteBuffer.allocate(pageSize).order(ByteOrder.LITTLE_ENDIAN);
        page.putInt(VERSION_OFFSET, 1);
        page.putInt(LAST_PAGE_OFFSET, (int) (pages - 1));
        page.putInt(NR_BADPAGES_OFFSET, 0);
        // the UUID's 16 bytes in the order its text shows them, as libuuid (and so mkswap) stores it
        page.order(ByteOrder.BIG_ENDIAN).putLong(UUID_OFFSET, uuid.getMostSignificantBits())
                .putLong(UUID_OFFSET + 8, uuid.getLeastSignificantBits());
        page.put(LABEL_OFFSET, labelBytes);
        page.put(pageSize - SIGNATURE.length, SIGNATURE);
        return page.array();
    }
}
