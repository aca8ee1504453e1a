// Raises the class file version of a directory's jars' old classes, so that an AOT cache can hold them.
// `make launcher-vm` runs it on build/lib-vm before the caches are trained (docs/PERFORMANCE.md,
// "picocli in the AOT cache").
//
//   java scripts/class-version.java DIR
//
// A JVM dumping an AOT cache with AOT class linking (the default) leaves out every class it could not
// link at dump time, and it does not link classes older than version 50 (Java 6), whose verifier
// predates stack maps: "Unlinked class not supported by AOTClassLinking". picocli is compiled for
// Java 5, so its ~200 classes were read from the jar, parsed and verified on every call. Here each class
// below version 50 of each jar in DIR is rewritten as version 52 (Java 8) with the stack maps that
// version needs, computed by the JDK's class-file API against the JDK's classes and DIR's jars; its
// members, code and attributes are otherwise the same. A jar without such classes is left untouched,
// and a signed jar too (its signatures name the bytes). Each rewritten jar replaces the old one under
// the same name, with its entries in the same order. Prints one line per rewritten jar; exits 1 on an
// error, 2 on a usage error.

import java.io.IOException;
import java.io.OutputStream;
import java.lang.classfile.ClassElement;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.MethodModel;
import java.lang.classfile.MethodTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

final class ClassVersion {
    public static void main(String[] args) throws IOException {
        if (args.length != 1 || !Files.isDirectory(Path.of(args[0]))) {
            System.err.println("usage: java scripts/class-version.java DIR");
            System.exit(2);
        }
        List<Path> jars;
        try (Stream<Path> s = Files.list(Path.of(args[0]))) {
            jars = s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        List<URL> urls = new ArrayList<>();
        for (Path jar : jars) {
            urls.add(jar.toUri().toURL());
        }
        // the stack maps need each type's super class: the JDK's from the JDK, the rest from the jars
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), null)) {
            ClassFile classFile = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                    ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofResourceParsing(loader))));
            for (Path jar : jars) {
                rewrite(classFile, jar);
            }
        } catch (RuntimeException e) {
            System.err.println("class-version: " + e);
            System.exit(1);
        }
    }

    private static final int OLDEST_LINKED = 50;
    private static final int REWRITTEN = 52;

    private static void rewrite(ClassFile classFile, Path jar) throws IOException {
        Path tmp = jar.resolveSibling(jar.getFileName() + ".tmp");
        int rewritten = 0;
        try (JarFile in = new JarFile(jar.toFile());
             OutputStream file = Files.newOutputStream(tmp);
             JarOutputStream out = new JarOutputStream(file)) {
            if (in.stream().anyMatch(e -> e.getName().startsWith("META-INF/") && e.getName().endsWith(".SF"))) {
                return;
            }
            for (var entries = in.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                byte[] bytes = in.getInputStream(entry).readAllBytes();
                if (entry.getName().endsWith(".class") && !entry.getName().endsWith("module-info.class")) {
                    ClassModel model = classFile.parse(bytes);
                    if (model.majorVersion() < OLDEST_LINKED) {
                        bytes = raised(classFile, model);
                        rewritten++;
                    }
                }
                JarEntry copy = new JarEntry(entry.getName());
                copy.setTime(entry.getTime());
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        } finally {
            if (rewritten == 0) {
                Files.deleteIfExists(tmp);
            }
        }
        if (rewritten > 0) {
            Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
            System.out.println("class-version: " + jar.getFileName() + ": " + rewritten + " classes raised to version " + REWRITTEN);
        }
    }

    /**
     * The class at version 52. The version is set before the methods are added, and each method's code
     * is passed through a code transform, so the builder writes the code anew and computes its stack
     * maps for that version (a class copied element by element would keep code without them).
     */
    private static byte[] raised(ClassFile classFile, ClassModel model) {
        return classFile.build(model.thisClass().asSymbol(), builder -> {
            builder.withVersion(REWRITTEN, 0);
            for (ClassElement element : model) {
                switch (element) {
                    case ClassFileVersion _ -> { }
                    case MethodModel method -> builder.transformMethod(method, MethodTransform.transformingCode(CodeTransform.ACCEPT_ALL));
                    default -> builder.with(element);
                }
            }
        });
    }
}
