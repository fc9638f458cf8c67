package com.muke.dubbocourse.common.api;

import java.util.List;

/** The seeds' sample service (see shared/seeds/000_*.txt). */
public interface BookFacade {
    List<Book> queryAll();

    Book queryByName(String name);
}
