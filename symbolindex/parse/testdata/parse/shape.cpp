#include <string>
#include <vector>

namespace geo {

/// A shape with sides.
class Shape {
public:
    explicit Shape(int sides);
    virtual ~Shape();

    /** Area of the shape. */
    virtual double area() const = 0;

    int sides() const { return sides_; }

    struct Cache {
        double value;
    };

private:
    int sides_;
};

template <typename T>
class Box {
public:
    T get() const;
private:
    T value_;
};

template <typename T>
T Box<T>::get() const {
    return value_;
}

// Builds a shape.
Shape::Shape(int sides) : sides_(sides) {}

Shape::~Shape() {}

std::vector<Shape*> make_shapes(int n) {
    std::vector<Shape*> out;
    out.reserve(n);
    return out;
}

}  // namespace geo
