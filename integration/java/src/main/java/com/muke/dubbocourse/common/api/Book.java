package com.muke.dubbocourse.common.api;

import java.io.Serializable;

/**
 * The seeds' Book value. The Go side registers a hessian2 POJO with the same Java class name,
 * so the field names and types here are part of the wire contract: {@code String name; String author;}.
 */
public class Book implements Serializable {
    private static final long serialVersionUID = 1L;

    private String name;
    private String author;

    public Book() {}

    public Book(String name, String author) {
        this.name = name;
        this.author = author;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getAuthor() {
        return author;
    }

    public void setAuthor(String author) {
        this.author = author;
    }

    @Override
    public String toString() {
        return "Book{name=" + name + ", author=" + author + "}";
    }
}
