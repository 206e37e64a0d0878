package io.flowtrace.cli.console;

import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * A file the command could not open or write, said in words ("cannot write \"/proc/x.html\": no such
 * file or directory") instead of the exception's class name, which is all the JDK gives for most of
 * them ({@code NoSuchFileException} carries only the path).
 */
public final class FileProblems {
    private FileProblems() {}

    /** One phrase naming the file and what is wrong with it. */
    public static String describe(FileSystemException e) {
        String file = e.getFile() != null ? "\"" + e.getFile() + "\"" : "the file";
        String what;
        if (e instanceof NoSuchFileException) {
            what = "no such file or directory, and it cannot be created there";
        } else if (e instanceof AccessDeniedException) {
            what = "permission denied";
        } else if (e instanceof NotDirectoryException) {
            what = "not a directory";
        } else if (e instanceof FileAlreadyExistsException) {
            what = "exists and is not a directory";
        } else if (e instanceof DirectoryNotEmptyException) {
            what = "a directory that is not empty";
        } else {
            what = e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
        }
        return "cannot write " + file + ": " + what;
    }
}
