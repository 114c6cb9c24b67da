import java.util.ArrayList;
import java.util.List;

public class Parser {
    enum Kind { NUMBER, PLUS, MINUS, STAR, LPAREN, RPAREN, END }

    static final class Token {
        final Kind kind;
        final int value;
        Token(Kind kind, int value) { this.kind = kind; this.value = value; }
    }

    private final List<Token> tokens = new ArrayList<>();
    private int pos;

    Parser(String text) {
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (Character.isDigit(c)) {
                int v = 0;
                while (i < text.length() && Character.isDigit(text.charAt(i))) {
                    v = v * 10 + (text.charAt(i) - '0');
                    i++;
                }
                tokens.add(new Token(Kind.NUMBER, v));
                continue;
            }
            switch (c) {
                case '+': tokens.add(new Token(Kind.PLUS, 0)); break;
                case '-': tokens.add(new Token(Kind.MINUS, 0)); break;
                case '*': tokens.add(new Token(Kind.STAR, 0)); break;
                case '(': tokens.add(new Token(Kind.LPAREN, 0)); break;
                case ')': tokens.add(new Token(Kind.RPAREN, 0)); break;
                default: break;
            }
            i++;
        }
        tokens.add(new Token(Kind.END, 0));
    }

    Token peek() { return tokens.get(pos); }

    Token next() { return tokens.get(pos++); }

    int expression() {
        int v = term();
        while (peek().kind == Kind.PLUS || peek().kind == Kind.MINUS) {
            Token op = next();
            int rhs = term();
            v = op.kind == Kind.PLUS ? v + rhs : v - rhs;
        }
        return v;
    }

    int term() {
        int v = factor();
        while (peek().kind == Kind.STAR) {
            next();
            v *= factor();
        }
        return v;
    }

    int factor() {
        Token t = next();
        if (t.kind == Kind.NUMBER) {
            return t.value;
        } else if (t.kind == Kind.LPAREN) {
            int v = expression();
            next();
            return v;
        } else if (t.kind == Kind.MINUS) {
            return -factor();
        }
    }

    public static void main(String[] args) {
        System.out.println(new Parser("2*(3+4)-5").expression());
    }
}
