import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Rewrites the class files of a jar that are older than Java 6 (major version below 50) as Java 8
 * class files, with the stack maps the JDK's ClassFile API computes; everything else is copied as
 * it is. Run by the build on target/apx.jar after shading: {@code java tools/UpgradeOldClassFiles.java JAR}.
 *
 * <p>Why: picocli ships Java 5 class files, and the JVM's AOT cache (JEP 483) cannot keep a class
 * that old once it has been linked ("Skipping picocli/...: Old class has been linked" in the
 * training log), nor the apx classes that implement picocli's interfaces. So every start loaded,
 * parsed and verified ~180 classes from the jar with the old type-inferring verifier: ~0.1 s of
 * every command-line call on one core.
 */
public final class UpgradeOldClassFiles {
    private static final int OLDEST_ARCHIVABLE = 50;
    private static final int TARGET = 52;

    public static void main(String[] args) throws IOException {
        Path jar = Path.of(args[0]);
        int upgraded = 0;
        // The zip file system rewrites only the entries written to it and copies the others as they are.
        try (URLClassLoader classes = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
                FileSystem zip = FileSystems.newFileSystem(jar);
                Stream<Path> entries = Files.walk(zip.getPath("/"))) {
            // Stack maps need the common supertypes of the jar's own classes, not only the JDK's.
            ClassFile classFile = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
                    ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
                            .orElse(ClassHierarchyResolver.ofResourceParsing(classes))));
            for (Path entry : entries.filter(path -> path.toString().endsWith(".class") && !path.startsWith("/META-INF")).toList()) {
                byte[] bytes = Files.readAllBytes(entry);
                if (majorVersion(bytes) < OLDEST_ARCHIVABLE) {
                    Files.write(entry, classFile.transformClass(classFile.parse(bytes),
                            ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL).andThen((builder, element) -> {
                                if (element instanceof ClassFileVersion) {
                                    builder.withVersion(TARGET, 0);
                                } else {
                                    builder.with(element);
                                }
                            })));
                    upgraded++;
                }
            }
        }
        System.out.println("UpgradeOldClassFiles: " + upgraded + " class files of " + jar.getFileName()
                + " rewritten from below version " + OLDEST_ARCHIVABLE + " to " + TARGET);
    }

    /** Bytes 6-7 of a class file (after the magic number and the minor version). */
    private static int majorVersion(byte[] classFile) {
        return (classFile[6] & 0xff) << 8 | classFile[7] & 0xff;
    }
}
