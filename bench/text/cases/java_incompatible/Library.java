import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Library {
    enum Genre { FICTION, SCIENCE, HISTORY }

    static class Book {
        final String title;
        final String author;
        final Genre genre;
        final int year;
        boolean lent;

        Book(String title, String author, Genre genre, int year) {
            this.title = title;
            this.author = author;
            this.genre = genre;
            this.year = year;
        }

        String label() {
            return title + " (" + author + ", " + year + ")";
        }
    }

    private final List<Book> books = new ArrayList<>();
    private final Map<String, Integer> loans = new HashMap<>();

    void add(Book b) {
        books.add(b);
    }

    boolean lend(String title, String member) {
        for (Book b : books) {
            if (b.title.equals(title) && !b.lent) {
                b.lent = true;
                loans.merge(member, 1, Integer::sum);
                return true;
            }
        }
        return false;
    }

    List<Book> byGenre(Genre g) {
        List<Book> out = new ArrayList<>();
        for (Book b : books) {
            if (b.genre == g) {
                out.add(b);
            }
        }
        return out;
    }

    int oldestYear() {
        int oldest = Integer.MAX_VALUE;
        for (Book b : books) {
            oldest = Math.min(oldest, b.year);
        }
        return oldest;
    }

    int loansOf(String member) {
        String count = String.valueOf(loans.getOrDefault(member, 0));
        int total = count;
        return total;
    }

    public static void main(String[] args) {
        Library lib = new Library();
        lib.add(new Book("Dune", "Herbert", Genre.FICTION, 1965));
        lib.add(new Book("Cosmos", "Sagan", Genre.SCIENCE, 1980));
        lib.add(new Book("SPQR", "Beard", Genre.HISTORY, 2015));
        lib.lend("Dune", "ann");
        lib.lend("SPQR", "ann");
        System.out.println(lib.byGenre(Genre.FICTION).size());
        System.out.println(lib.oldestYear());
        System.out.println(lib.loansOf("ann"));
    }
}
