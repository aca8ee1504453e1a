package io.jrunc.tests;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A static i386 ELF program that makes 32-bit syscalls with {@code int 0x80}, for testing a seccomp
 * filter's x86 section without a 32-bit toolchain (the project has no C and no assembler). The machine
 * code is listed instruction by instruction below.
 */
public final class I386 {
    private I386() {}

    private static final int BASE = 0x08048000, HEADERS = 52 + 32;

    /** {@code mkdir(path, 0755)} with the i386 syscall number (39), then {@code exit(errno)} (1): exit 0 on success. */
    public static byte[] mkdirProgram(String path) {
        byte[] name = (path + "\0").getBytes(StandardCharsets.US_ASCII);
        int codeSize = 5 + 5 + 5 + 2 + 2 + 2 + 5 + 2;
        int pathAddress = BASE + HEADERS + codeSize;
        ByteBuffer code = ByteBuffer.allocate(codeSize).order(ByteOrder.LITTLE_ENDIAN);
        code.put((byte) 0xB8).putInt(39);          // mov eax, 39       (__NR_mkdir on i386)
        code.put((byte) 0xBB).putInt(pathAddress); // mov ebx, path
        code.put((byte) 0xB9).putInt(0755);        // mov ecx, 0755
        code.put((byte) 0xCD).put((byte) 0x80);    // int 0x80          (eax = 0 or -errno)
        code.put((byte) 0xF7).put((byte) 0xD8);    // neg eax
        code.put((byte) 0x89).put((byte) 0xC3);    // mov ebx, eax
        code.put((byte) 0xB8).putInt(1);           // mov eax, 1        (__NR_exit on i386)
        code.put((byte) 0xCD).put((byte) 0x80);    // int 0x80
        int size = HEADERS + codeSize + name.length;

        ByteBuffer elf = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        // ELF header (Elf32_Ehdr): 32-bit, little-endian, version 1, executable, i386
        elf.put(new byte[] {0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        elf.putShort((short) 2).putShort((short) 3).putInt(1);
        elf.putInt(BASE + HEADERS); // e_entry
        elf.putInt(52);             // e_phoff
        elf.putInt(0).putInt(0);    // e_shoff, e_flags
        elf.putShort((short) 52).putShort((short) 32).putShort((short) 1); // e_ehsize, e_phentsize, e_phnum
        elf.putShort((short) 0).putShort((short) 0).putShort((short) 0);   // no sections
        // one PT_LOAD program header (Elf32_Phdr) mapping the whole file read+execute at BASE
        elf.putInt(1).putInt(0).putInt(BASE).putInt(BASE).putInt(size).putInt(size).putInt(5).putInt(0x1000);
        elf.put(code.array()).put(name);
        return elf.array();
    }
}
